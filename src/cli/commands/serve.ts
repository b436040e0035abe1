// rl-adv serve: the estimators over JSON lines on stdin/stdout, so a training loop in any language
// can call them. One request a line in, one response a line out, in request order.
import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { RlAdvantagesError } from '../../errors.js';
import { ESTIMATOR_NAMES } from '../../estimators/registry.js';
import type { Batch, Estimator } from '../../estimators/types.js';
import { describe } from '../../internal/validate.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import { cliEstimator } from '../estimator.js';
import { loadVectorizer, type VectorizerOptions } from '../io.js';
import { addVectorizerOptions } from '../options.js';
import { withExamples, type CliIo } from '../core.js';

/** A request id: echoed in the response. */
type RequestId = string | number;

/** What a request line that fails gets back. */
interface ErrorResponse {
  id: RequestId | null;
  error: { code: string; message: string };
}

/** A request's error before the estimator runs: a code of its own, and the field in the message. */
class BadRequest extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** A bare NaN / Infinity / -Infinity token (tested on the line with its strings emptied): Python's json.dumps writes them by default. */
const NON_FINITE = /(?:^|[[,:\s])-?(?:NaN|Infinity)\s*(?:[\],}]|$)/;

/** The first `"id": <number or string>` of a line that is not valid JSON, or null. */
export function idOfBrokenLine(line: string): RequestId | null {
  const m = /(?:^|[{,])\s*"id"\s*:\s*(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\]|\\.)+")/.exec(line);
  if (m === null) return null;
  try {
    const id = JSON.parse(m[1] as string) as unknown;
    return (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
  } catch {
    return null;
  }
}

/** Distinct estimator names cached at most; beyond, the cache restarts (names are few in practice). */
const CACHE_LIMIT = 256;

/**
 * Answers request lines. Estimators are created once per name and reused; the vectorizer is the
 * one fitted (or loaded) at start.
 */
export class RequestHandler {
  readonly #vectorizer: TfidfVectorizer | undefined;
  readonly #estimators = new Map<string, Estimator>();

  constructor(vectorizer: TfidfVectorizer | undefined) {
    this.#vectorizer = vectorizer;
  }

  #estimator(name: string): Estimator {
    let estimator = this.#estimators.get(name);
    if (estimator === undefined) {
      estimator = cliEstimator(name, this.#vectorizer, 'rl-adv serve');
      if (this.#estimators.size >= CACHE_LIMIT) this.#estimators.clear();
      this.#estimators.set(name, estimator);
    }
    return estimator;
  }

  /**
   * The response line (without the newline) to one request line. Never throws for bad input:
   * the error is the response.
   *
   * @param lineNumber - 1-based line of the request, named in the message of a line that is not JSON.
   */
  handle(line: string, lineNumber: number): string {
    let id: RequestId | null = null;
    try {
      let request: unknown;
      try {
        request = JSON.parse(line);
      } catch (error) {
        // The client waits for this id: read it from the text when the line does not parse.
        id = idOfBrokenLine(line);
        if (NON_FINITE.test(line.replace(/"(?:[^"\\]|\\.)*"/g, '""'))) {
          throw new BadRequest(
            'bad_json',
            `line ${lineNumber} holds NaN or Infinity, which JSON does not allow (Python's json.dumps writes them by default): ` +
              'send finite numbers and encode with json.dumps(request, allow_nan=False), which raises on them instead',
          );
        }
        throw new BadRequest('bad_json', `line ${lineNumber} is not valid JSON (${(error as Error).message.replace(/, ".*" is not valid JSON$/s, '')})`);
      }
      if (typeof request !== 'object' || request === null || Array.isArray(request)) {
        throw new BadRequest('bad_request', `line ${lineNumber}: a request must be a JSON object {id, estimator, rewards, prompts?, group_ids?}, got ${describe(request)}`);
      }
      const r = request as Record<string, unknown>;
      const rawId = r.id;
      if ((typeof rawId === 'string' && rawId !== '') || (typeof rawId === 'number' && Number.isFinite(rawId))) id = rawId;
      else throw new BadRequest('bad_request', `line ${lineNumber}: field "id" must be a non-empty string or a finite number, got ${describe(rawId)}`);
      if (typeof r.estimator !== 'string') {
        throw new BadRequest('bad_request', `field "estimator" must be an estimator name (${ESTIMATOR_NAMES.join(', ')}), got ${describe(r.estimator)}`);
      }
      const estimator = this.#estimator(r.estimator);
      if (r.rewards === undefined) throw new BadRequest('missing_field', 'field "rewards" is required: an array of finite numbers');
      if (!Array.isArray(r.rewards)) throw new BadRequest('bad_type', `field "rewards" must be an array of finite numbers, got ${describe(r.rewards)}`);
      const batch: { -readonly [K in keyof Batch]: Batch[K] } = { rewards: r.rewards as number[] };
      if (r.prompts !== undefined && r.prompts !== null) batch.prompts = r.prompts as string[];
      if (r.group_ids !== undefined && r.group_ids !== null) batch.groupIds = r.group_ids as (string | number)[];
      if (r.features !== undefined && r.features !== null) batch.features = r.features as number[][];
      const result = estimator.compute(batch);
      return JSON.stringify({
        id,
        advantages: Array.from(result.advantages),
        baselines: Array.from(result.baselines),
        loo_mean: Array.from(result.looMean),
        max_self_weight: result.maxSelfWeight,
      });
    } catch (error) {
      const response: ErrorResponse = { id, error: errorBody(error) };
      return JSON.stringify(response);
    }
  }
}

/** The library's names for batch fields are the request's: groupIds is group_ids on the wire. */
function errorBody(error: unknown): { code: string; message: string } {
  if (error instanceof BadRequest) return { code: error.code, message: error.message };
  if (error instanceof RlAdvantagesError) {
    return { code: error.code, message: error.message.replace(/\bgroupIds\b/g, 'group_ids') };
  }
  // A bug, not bad input: still answered, so the client is not left waiting and the server goes on.
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

async function serve(options: VectorizerOptions, io: CliIo): Promise<void> {
  const handler = new RequestHandler(await loadVectorizer(options, io));
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity, terminal: false });
  let closed = false;
  // The client went away (EPIPE): stop reading, end quietly.
  io.stdout.on('error', () => {
    closed = true;
    lines.close();
  });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber++;
    if (closed) break;
    if (line.trim() === '') continue;
    // One write per response, as soon as it is computed: a client waiting on one request gets it.
    io.stdout.write(handler.handle(line, lineNumber) + '\n');
  }
}

/** Registers `rl-adv serve`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('serve')
    .summary('serve the estimators as JSON lines over stdin/stdout')
    .description(
      'Reads one JSON request a line on standard input and writes one JSON response a line on standard ' +
        'output, in request order, until the input ends.\n' +
        'Request: {"id", "estimator", "rewards", "prompts"?, "group_ids"?} ("features"? for kernel_loo_T<T>).\n' +
        'Response: {"id", "advantages", "baselines", "loo_mean", "max_self_weight"}. A line that is not ' +
        'JSON, or a bad request, gets {"id" (null if unknown), "error": {"code", "message"}} and the server ' +
        'goes on. Blank lines are skipped. The vectorizer is fitted (or loaded) once at start and each ' +
        'estimator is created once; stdout carries nothing but responses.',
    );
  addVectorizerOptions(command).action(async (options: VectorizerOptions) => serve(options, io));
  withExamples(command, [
    `echo '{"id": 1, "estimator": "loo_batch_mean", "rewards": [1, 0, 1]}' | rl-adv serve`,
    'rl-adv serve --vectorizer gsm8k-train.tfidf.json < requests.jsonl > responses.jsonl',
  ]);
}
