// The Ray executor (`rl-adv study --executor ray`, issue 40): every attempt of a job runs as a Ray task on a node that
// has its resources, through the bridge (`python -m rl_advantages.cluster`, a Ray driver; ray-bridge.ts). Before any
// job, `prepare` checks that some alive node has each job's resources; before the first job runs, that no Ray driver of
// an earlier orchestrator of this run folder is still connected (its tasks would still write) and that the run folder
// is the same folder on every node (a token file read back by a probe task pinned to each node); before the first job
// of each program (the TRL drivers, the sim's job command), the program's own check on every node. A lost node or worker
// rejects with JobLostError (the scheduler retries); a non-zero exit with `driver_failed` and the log's tail.
import type { CancelSignal } from './types.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import { writeFileDurable } from '../../internal/durable-write.js';
import { cancelled, keepEarlierLog } from './local.js';
import { RayBridge, rayUnavailable, type BridgeMessage } from './ray-bridge.js';
import { checkResources, nodeName, programChecks, throwProblems, type ProbeAnswer, type RayNode } from './ray-probe.js';
import { JobLostError, type Executor, type JobAttempt, type JobDescription, type JobPlacement } from './types.js';

/** What the Ray executor needs. */
export interface RayExecutorOptions {
  /** The head's GCS address HOST:PORT (`--ray-address`, default $RAY_ADDRESS). */
  readonly address?: string;
  /** The Python that runs the bridge (default $RL_ADV_PYTHON, else `python3`); it needs the package and ray. */
  readonly python?: string;
  /** The orchestrator's environment (the bridge's; jobs get their node's environment plus their own). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How a job is named in messages. */
function jobLabel(job: JobDescription): string {
  const argv = job.command.argv;
  const program = argv[1] === '-m' ? `${String(argv[2])} ${String(argv[3] ?? '')}`.trim() : path.basename(argv[1] ?? argv[0] ?? job.id);
  return `${program} (job ${job.id})`;
}

/** Runs each job as a Ray task on the cluster. */
export class RayExecutor implements Executor {
  readonly name = 'ray' as const;
  private runDir: string | undefined;
  private token: { file: string; value: string } | undefined;
  private readonly programs = new Map<string, Promise<void>>();
  private claimed: Promise<void> | undefined;

  private constructor(
    private readonly bridge: RayBridge,
    readonly address: string,
  ) {}

  /**
   * Connects to the cluster at `options.address` (else $RAY_ADDRESS).
   *
   * @throws {RlAdvantagesError} `bad_option` (field `ray-address`) without an address; `ray_unavailable` for an
   *   unreachable cluster or a Python without the package or ray (one line).
   * @example
   * ```ts
   * const executor = await RayExecutor.connect({ address: '10.0.0.1:6379' });
   * ```
   */
  static async connect(options: RayExecutorOptions = {}): Promise<RayExecutor> {
    const env = options.env ?? process.env;
    const address = options.address ?? env.RAY_ADDRESS;
    if (address === undefined || address === '') {
      throw new RlAdvantagesError('--executor ray needs the cluster: --ray-address HOST:PORT (the head printed by `ray start --head`) or RAY_ADDRESS', { code: 'bad_option', field: 'ray-address' });
    }
    const python = options.python ?? env.RL_ADV_PYTHON ?? 'python3';
    return new RayExecutor(await RayBridge.start(python, address, env), address);
  }

  private async nodes(): Promise<RayNode[]> {
    return (await this.bridge.ask({ op: 'nodes' })).nodes as RayNode[];
  }

  private async probe(paths: readonly string[], commands: readonly unknown[]): Promise<void> {
    const { file, value } = this.token as { file: string; value: string };
    const answer = await this.bridge.ask({ op: 'probe', run_dir: this.runDir, token_file: file, token: value, paths, commands });
    throwProblems(answer.nodes as ProbeAnswer[]);
  }

  /** Resources some alive node has, checked before the run folder is touched (the orchestrator's lock comes after). */
  async prepare(runDir: string, jobs: readonly JobDescription[]): Promise<void> {
    this.runDir = path.resolve(runDir);
    const nodes = await this.nodes();
    if (nodes.length === 0) throw rayUnavailable(`the Ray cluster at ${this.address} has no alive node`);
    checkResources(nodes, jobs, this.address);
  }

  /**
   * Once, before the first job (the run folder is then the orchestrator's, under its lock): an earlier orchestrator's
   * Ray driver of this folder (killed, then --resume) must be gone, so Ray has cancelled its tasks (each attempt's fence,
   * RUN/ray/fence, keeps a straggler from writing meanwhile); then the run folder must be the same folder on every node
   * (a random token written here, read back by a probe task pinned to each node).
   */
  private claimAndProbe(): Promise<void> {
    this.claimed ??= (async () => {
      await this.bridge.ask({ op: 'claim', run_dir: this.runDir });
      const file = path.join(this.runDir as string, 'ray', 'probe-token');
      mkdirSync(path.dirname(file), { recursive: true });
      const value = randomBytes(16).toString('hex');
      writeFileDurable(file, `${value}\n`);
      this.token = { file, value };
      await this.probe([], []);
    })();
    return this.claimed;
  }

  /** The program's own check on every node, once per program (its first job waits for it). */
  private checkProgram(job: JobDescription): Promise<void> {
    const checks = programChecks(job, this.runDir as string);
    const key = JSON.stringify(checks);
    let done = this.programs.get(key);
    if (done === undefined) {
      done = this.probe(checks.paths, checks.commands);
      this.programs.set(key, done);
    }
    return done;
  }

  async run(job: JobDescription, attempt: number, signal: CancelSignal): Promise<JobAttempt> {
    if (this.runDir === undefined) throw new RlAdvantagesError('RayExecutor.run before prepare', { code: 'internal' });
    if (signal.aborted) throw cancelled(job);
    await this.claimAndProbe();
    await this.checkProgram(job);
    if (signal.aborted) throw cancelled(job);
    mkdirSync(path.dirname(job.logFile), { recursive: true });
    keepEarlierLog(job.logFile);
    const env: Record<string, string> = { ...job.command.env };
    delete env.CUDA_VISIBLE_DEVICES; // Ray's, for the GPUs it gave the task
    return new Promise<JobAttempt>((resolve, reject) => {
      let placement: JobPlacement | undefined;
      let id = 0;
      const onAbort = (): void => {
        this.bridge.send({ op: 'cancel', target: id });
      };
      const settle = (outcome: () => void): true => {
        signal.removeEventListener('abort', onAbort);
        outcome();
        return true;
      };
      const onMessage = (m: BridgeMessage): boolean => {
        const where = placement === undefined ? '' : ` on node ${placement.node}`;
        switch (m.event) {
          case 'started':
            placement = { node: nodeName(m as unknown as { ip: string; node_id: string }), gpuIds: (m.gpu_ids as string[]).map(String), started: new Date() };
            return false;
          case 'exit':
            if (m.code === 0) return settle(() => resolve({ stdout: String(m.stdout), placement: placement as JobPlacement }));
            return settle(() => {
              const how = m.code === null ? `was killed by ${String(m.signal)}` : `failed with exit code ${String(m.code)}`;
              reject(new RlAdvantagesError(`${jobLabel(job)} ${how}${where} (log ${job.logFile}):\n  ${String(m.tail).split('\n').join('\n  ')}`, { code: 'driver_failed' }));
            });
          case 'lost':
          case 'fenced':
            return settle(() => reject(new JobLostError(`job ${job.id} attempt ${attempt} lost${where}: ${String(m.message)}`, placement)));
          case 'cancelled':
            return settle(() => reject(cancelled(job)));
          case 'bridge_exited':
            return settle(() => reject(rayUnavailable(String(m.message))));
          case 'error':
            return settle(() => reject(new RlAdvantagesError(`${jobLabel(job)} could not run${where}: ${String(m.message)}`, { code: 'driver_failed' })));
          default:
            return false;
        }
      };
      try {
        id = this.bridge.send(
          {
            op: 'submit',
            job: job.id,
            attempt,
            argv: job.command.argv,
            env,
            cwd: job.command.cwd,
            num_gpus: job.resources.gpus,
            num_cpus: job.resources.cpus,
            log_file: job.logFile,
            run_dir: this.runDir,
          },
          onMessage,
        );
      } catch (error) {
        reject(error as Error);
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  close(): Promise<void> {
    return this.bridge.close();
  }
}
