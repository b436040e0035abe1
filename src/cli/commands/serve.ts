// rl-adv serve: the estimators over JSON lines on stdin/stdout, so a training loop in any language
// can call them. One request a line in, one response a line out, in request order.
import type { Command } from 'commander';
import { createInterface } from 'node:readline';
import { RlAdvantagesError } from '../../errors.js';
import type { StatefulEstimator } from '../../estimators/prompt-value.js';
import { ESTIMATOR_NAMES, isStatefulEstimator } from '../../estimators/registry.js';
import type { Batch, Estimator, EstimatorDiagnostics, EstimatorResult } from '../../estimators/types.js';
import { describe } from '../../internal/validate.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import { cliEstimator, cliStatefulEstimator, type CliEstimatorOptions } from '../estimator.js';
import { loadVectorizer, type VectorizerOptions } from '../io.js';
import { addVectorizerOptions } from '../options.js';
import { ServeSessions, sessionId } from '../serve-sessions.js';
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

/** The estimator options a request may give, wire name -> library name. */
const OPTION_FIELDS = { normalize: 'normalize', epsilon: 'epsilon', std_floor: 'stdFloor', singleton: 'singleton' } as const;

/** The diagnostics as the wire names them. */
function diagnosticsJson(d: EstimatorDiagnostics): Record<string, number> {
  return {
    groups: d.groups,
    groups_of_one: d.groupsOfOne,
    zero_variance_groups: d.zeroVarianceGroups,
    zero_advantage_fraction: d.zeroAdvantageFraction,
    masked: d.masked,
  };
}

function requestOptions(r: Record<string, unknown>): CliEstimatorOptions {
  const options: Record<string, unknown> = {};
  for (const [wire, name] of Object.entries(OPTION_FIELDS)) if (r[wire] !== undefined && r[wire] !== null) options[name] = r[wire];
  return options as CliEstimatorOptions;
}

function requestBatch(r: Record<string, unknown>): Batch {
  if (r.rewards === undefined) throw new BadRequest('missing_field', 'field "rewards" is required: an array of finite numbers');
  if (!Array.isArray(r.rewards)) throw new BadRequest('bad_type', `field "rewards" must be an array of finite numbers, got ${describe(r.rewards)}`);
  const mask = Array.isArray(r.mask) ? (r.mask as unknown[]) : undefined;
  // JSON has no NaN: a masked rollout's reward may be null.
  const rewards = (r.rewards as unknown[]).map((x, i) => (x === null && mask?.[i] === true ? Number.NaN : x)) as number[];
  const batch: { -readonly [K in keyof Batch]: Batch[K] } = { rewards };
  if (r.prompts !== undefined && r.prompts !== null) batch.prompts = r.prompts as string[];
  if (r.group_ids !== undefined && r.group_ids !== null) batch.groupIds = r.group_ids as (string | number)[];
  if (r.features !== undefined && r.features !== null) batch.features = r.features as number[][];
  if (r.lengths !== undefined && r.lengths !== null) batch.lengths = r.lengths as number[];
  if (r.greedy_rewards !== undefined && r.greedy_rewards !== null) batch.greedyRewards = r.greedy_rewards as number[];
  if (r.mask !== undefined && r.mask !== null) batch.mask = r.mask as boolean[];
  return batch;
}

/**
 * Answers request lines. Estimators are created once per name and reused; the vectorizer is the
 * one fitted (or loaded) at start.
 */
export class RequestHandler {
  readonly #vectorizer: TfidfVectorizer | undefined;
  readonly #estimators = new Map<string, Estimator>();
  readonly #sessions = new ServeSessions();

  constructor(vectorizer: TfidfVectorizer | undefined) {
    this.#vectorizer = vectorizer;
  }

  #estimator(name: string, options: CliEstimatorOptions): Estimator {
    const key = `${name} ${JSON.stringify(options)}`;
    let estimator = this.#estimators.get(key);
    if (estimator === undefined) {
      estimator = cliEstimator(name, this.#vectorizer, 'rl-adv serve', options);
      if (this.#estimators.size >= CACHE_LIMIT) this.#estimators.clear();
      this.#estimators.set(key, estimator);
    }
    return estimator;
  }

  /** A stateful estimator's step: compute from the session's state, then update it (unless "update": false). */
  #statefulStep(name: string, r: Record<string, unknown>, batch: Batch): EstimatorResult {
    const id = sessionId(r.session, `${name}, which keeps state across requests`);
    const options = { ...requestOptions(r), ...(r.prompt_value === undefined ? {} : { promptValue: r.prompt_value as CliEstimatorOptions['promptValue'] }) } as CliEstimatorOptions;
    const create = (): StatefulEstimator => cliStatefulEstimator(name, this.#vectorizer, 'rl-adv serve', options);
    return this.#sessions.step(id, `${name} ${JSON.stringify(options)}`, create, batch, r.update !== false).result;
  }

  /** A request with an "op": a session's checkpoint (state_dict) or its restore (load_state_dict). */
  #op(id: RequestId, r: Record<string, unknown>): Record<string, unknown> {
    const allow = (fields: readonly string[]): void => {
      const extra = Object.keys(r).find((key) => !fields.includes(key));
      if (extra !== undefined) throw new BadRequest('unknown_field', `unknown field ${JSON.stringify(extra)}: a ${String(r.op)} request has ${fields.join(', ')}`);
    };
    if (r.op === 'state_dict') {
      allow(['id', 'op', 'session']);
      return { id, ...this.#sessions.stateDict(sessionId(r.session, 'a state_dict request')) };
    }
    if (r.op === 'load_state_dict') {
      allow(['id', 'op', 'session', 'estimator', 'state', ...Object.keys(OPTION_FIELDS), 'prompt_value']);
      const session = sessionId(r.session, 'a load_state_dict request');
      if (typeof r.estimator !== 'string') throw new BadRequest('bad_request', `field "estimator" must be the checkpoint's estimator name, got ${describe(r.estimator)}`);
      if (r.state === undefined) throw new BadRequest('missing_field', 'field "state" is required: the "state" of a state_dict response');
      const name = r.estimator;
      const options = { ...requestOptions(r), ...(r.prompt_value === undefined ? {} : { promptValue: r.prompt_value as CliEstimatorOptions['promptValue'] }) } as CliEstimatorOptions;
      const create = (): StatefulEstimator => {
        if (!isStatefulEstimator(name)) throw new RlAdvantagesError(`estimator "${name}" keeps no state: load_state_dict restores a stateful estimator's session`, { code: 'bad_request', field: 'estimator' });
        return cliStatefulEstimator(name, this.#vectorizer, 'rl-adv serve', options);
      };
      this.#sessions.loadStateDict(session, create, Object.keys(options).length > 0, r.state, this.#vectorizer);
      return { id, session, loaded: true };
    }
    throw new BadRequest('unknown_op', `unknown op ${describe(r.op)}; ops: state_dict, load_state_dict (an estimator request has no "op")`);
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
      if (r.op !== undefined) return JSON.stringify(this.#op(id, r));
      if (typeof r.estimator !== 'string') {
        throw new BadRequest('bad_request', `field "estimator" must be an estimator name (${ESTIMATOR_NAMES.join(', ')}), got ${describe(r.estimator)}`);
      }
      const name = r.estimator;
      const stateful = isStatefulEstimator(name);
      const estimator = stateful ? undefined : this.#estimator(name, requestOptions(r));
      const batch = requestBatch(r);
      const result = estimator === undefined ? this.#statefulStep(name, r, batch) : estimator.compute(batch);
      return JSON.stringify({
        id,
        advantages: Array.from(result.advantages),
        baselines: Array.from(result.baselines),
        loo_mean: Array.from(result.looMean),
        max_self_weight: result.maxSelfWeight,
        diagnostics: diagnosticsJson(result.diagnostics),
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
    const message = error.message
      .replace(/\bgroupIds\b/g, 'group_ids')
      .replace(/\bgreedyRewards\b/g, 'greedy_rewards')
      .replace(/\bstdFloor\b/g, 'std_floor');
    return { code: error.code, message };
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
        'Request: {"id", "estimator", "rewards", "prompts"?, "group_ids"?} ("features"? for kernel_loo_T<T>, ' +
        '"lengths"? for opo and reinforce_plus_plus_baseline, "greedy_rewards"? for remax, "mask"? (true = masked, its ' +
        'reward may be null), "normalize"?, "epsilon"?, "std_floor"?, "singleton"?). prompt_value keeps state per ' +
        '"session" id: each request computes from it, then updates it (unless "update": false); "prompt_value"? ' +
        'holds its options on the first request. {"id", "op": "state_dict", "session"} answers the session\'s checkpoint ' +
        '{"id", "session", "estimator", "state"}; {"id", "op": "load_state_dict", "session", "estimator", "state"} ' +
        'restores it (answer {"id", "session", "loaded": true}), bit for bit.\n' +
        'Response: {"id", "advantages", "baselines", "loo_mean", "max_self_weight", "diagnostics": {"groups", ' +
        '"groups_of_one", "zero_variance_groups", "zero_advantage_fraction", "masked"}}. A line that is not ' +
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
