// rl-adv data gsm8k: puts GSM8K where every command finds it (the cache by default), verified by sha256.
import type { Command } from 'commander';
import { gsm8kCacheDir } from '../../data/cache.js';
import { copyGsm8k, downloadGsm8k, type FetchGsm8kResult } from '../../data/download.js';
import { GSM8K_COMMIT, GSM8K_FILES, gsm8kBaseUrl } from '../../data/gsm8k-source.js';
import { isOffline } from '../../data/ensure.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { downloadReporter } from '../download-progress.js';

interface DataGsm8kOptions {
  dir?: string;
  from?: string;
}

async function run(options: DataGsm8kOptions, io: CliIo): Promise<void> {
  const dir = options.dir ?? gsm8kCacheDir();
  const reporter = downloadReporter(io);
  let result: FetchGsm8kResult;
  try {
    if (options.from !== undefined) {
      result = await copyGsm8k(options.from, { dir, ...reporter });
    } else {
      if (isOffline()) {
        throw new CliUsageError(`RL_ADV_OFFLINE is set, so nothing is downloaded: copy a local GSM8K with rl-adv data gsm8k --from DIR`);
      }
      const base = gsm8kBaseUrl();
      io.stderr.write(`rl-adv: GSM8K from ${base} into ${dir}\n`);
      result = await downloadGsm8k({ dir, baseUrl: base, ...reporter });
    }
  } finally {
    reporter.stop();
  }
  const what = result.fetched ? (options.from !== undefined ? 'copied and verified' : 'downloaded and verified') : 'already present and verified';
  io.stdout.write(`GSM8K ${what} in ${result.dir}: ${result.files.map((f) => f.name).join(', ')}${result.license ? ', LICENSE' : ''}\n`);
}

/** Registers `rl-adv data` and its `gsm8k` subcommand. */
export function register(program: Command, io: CliIo): void {
  const data = program
    .command('data')
    .summary('get the GSM8K data the study and the Tinker drivers read')
    .description('Puts datasets where every rl-adv command finds them.');
  withExamples(data, ['rl-adv data gsm8k']);
  const gsm8k = data
    .command('gsm8k')
    .summary('download (or copy) GSM8K into the cache, verified by sha256')
    .description(
      `Fetches ${GSM8K_FILES.map((f) => f.name).join(', ')} and the MIT LICENSE of openai/grade-school-math at commit ` +
        `${GSM8K_COMMIT} from <base>/<file> (<base>: $RL_ADV_GSM8K_URL, else GitHub's raw files of ` +
        'grade_school_math/data at that commit) and checks each against its sha256. Nothing is written unless every ' +
        'file matches. Commands that need GSM8K look for it in this order: --data-dir, GSM8K_DIR, the cache ' +
        '($RL_ADV_CACHE_DIR/gsm8k, default $XDG_CACHE_HOME/rl-advantages/gsm8k or ~/.cache/rl-advantages/gsm8k), ' +
        'and download it into the cache on first use unless RL_ADV_OFFLINE=1.',
    )
    .option('--dir <dir>', 'where to put the files (default: the cache)')
    .option('--from <dir>', 'verify and copy a local copy of the files instead of downloading')
    .action(async (options: DataGsm8kOptions) => run(options, io));
  withExamples(gsm8k, [
    'rl-adv data gsm8k',
    'rl-adv data gsm8k --from grade-school-math/grade_school_math/data',
    'RL_ADV_GSM8K_URL=https://mirror.example/gsm8k/data rl-adv data gsm8k --dir data/gsm8k',
  ]);
}
