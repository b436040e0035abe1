// rl-adv serve: the estimators over JSON lines on stdin/stdout, so a training loop in any language
// can call them. One request a line in, one response a line out, in request order.
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import type { Readable } from 'node:stream';
import { RlAdvantagesError } from '../../errors.js';
import type { StatefulEstimator } from '../../estimators/prompt-value.js';
import { catalogueJson, specFromWire, wireMessage } from '../../estimators/catalogue-json.js';
import { camelCase, snakeCase } from '../../estimators/descriptor.js';
import { isStatefulEstimator } from '../../estimators/registry.js';
import { knownNames, parseName } from '../../estimators/spec.js';
import { didYouMean } from '../../internal/suggest.js';
import type { Batch, Estimator, EstimatorDiagnostics, EstimatorResult } from '../../estimators/types.js';
import { describe } from '../../internal/validate.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import { cliEstimator, cliStatefulEstimator, type CliEstimatorOptions, type CliEstimatorSpec } from '../estimator.js';
import { addEstimatorModuleOption, loadEstimatorModules } from '../estimator-modules.js';
import { loadVectorizer, type VectorizerOptions } from '../io.js';
import { addVectorizerOptions } from '../options.js';
import { ServeSessions, sessionId } from '../serve-sessions.js';
import { DEFAULT_MAX_REQUEST_BYTES, MAX_REQUEST_BYTES_LIMIT, requestLines, scanBrokenLine, type RequestId } from '../serve-lines.js';
import { watchParent } from '../serve-parent.js';
import { integerOption } from '../options.js';
import { withExamples, type CliIo } from '../core.js';

/** The error of a request line that fails. */
interface ErrorBody {
  code: string;
  message: string;
  field?: string;
  index?: number;
}

/** What a request line that fails gets back. */
interface ErrorResponse {
  id: RequestId | null;
  error: ErrorBody;
}

/** A request's error before the estimator runs: a code of its own, and the field in the message. */
class BadRequest extends Error {
  readonly code: string;
  readonly field: string | undefined;
  readonly index: number | undefined;
  constructor(code: string, message: string, field?: string, index?: number) {
    super(message);
    this.code = code;
    this.field = field;
    this.index = index;
  }
}

/** The fields of an estimator request besides the estimator's own parameters (snake_case, at the top level). */
export const REQUEST_FIELDS: readonly string[] = Object.freeze([
  'id',
  'op',
  'estimator',
  'rewards',
  'prompts',
  'group_ids',
  'features',
  'mask',
  'lengths',
  'greedy_rewards',
  'reward_components',
  'session',
  'update',
  'prompt_value',
]);

/** The ops a request may name (an estimator request has none). */
const OPS: readonly string[] = Object.freeze(['describe', 'state_dict', 'load_state_dict']);

/** Distinct estimator names cached at most; beyond, the cache restarts (names are few in practice). */
const CACHE_LIMIT = 256;


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

/**
 * The estimator's parameters given at the top level of the request (snake_case; null is not given). A field that is
 * neither a request field nor a parameter of the estimator is an error suggesting the closest known name.
 */
function requestOptions(r: Record<string, unknown>, spec: CliEstimatorSpec): CliEstimatorOptions {
  const { descriptor } = parseName(typeof spec === 'string' ? spec : spec.name);
  const parameters = descriptor.parameters.map((p) => snakeCase(p.name));
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) {
    if (REQUEST_FIELDS.includes(key)) continue;
    if (!parameters.includes(key)) {
      const takes = parameters.length === 0 ? `${descriptor.name} takes no options` : `${descriptor.name}'s options: ${parameters.join(', ')}`;
      throw new BadRequest('unknown_field', `unknown field ${JSON.stringify(key)}${didYouMean(key, [...REQUEST_FIELDS, ...parameters])}; ${takes}`, key);
    }
    if (value !== null) options[camelCase(key)] = value;
  }
  return options as CliEstimatorOptions;
}

/** The cache key of an estimator and its options (also how a session's clash names it). */
function keyOf(spec: CliEstimatorSpec, options: CliEstimatorOptions): string {
  return `${typeof spec === 'string' ? spec : JSON.stringify(spec)} ${JSON.stringify(options)}`;
}

/**
 * `group_ids` as the wire may carry them exactly: strings, and integers within +-(2^53 - 1). A JSON number beyond
 * has already lost its identity in parsing (2^53 + 1 reads as 2^53), and a fraction's decimal is not its value,
 * so both are refused, as are booleans (JSON's true is no group).
 *
 * @throws {@link BadRequest} `bad_type` naming `group_ids` and the index.
 */
function wireGroupIds(value: unknown): (string | number)[] {
  if (!Array.isArray(value)) throw new BadRequest('bad_type', `field "group_ids" must be an array of strings or integers, got ${describe(value)}`, 'group_ids');
  value.forEach((id: unknown, i) => {
    if (typeof id === 'string' || Number.isSafeInteger(id)) return;
    const why =
      typeof id === 'number' && Number.isInteger(id)
        ? ': a JSON number beyond 2^53 - 1 loses its identity (9007199254740993 reads as 9007199254740992); send such ids as strings'
        : typeof id === 'number'
          ? ': a group id is an integer or a string'
          : '';
    throw new BadRequest('bad_type', `group_ids[${i}] must be a string or an integer within +-(2^53 - 1), got ${typeof id === 'boolean' ? String(id) : describe(id)}${why}`, 'group_ids', i);
  });
  return value as (string | number)[];
}

function requestBatch(r: Record<string, unknown>): Batch {
  if (r.rewards === undefined) throw new BadRequest('missing_field', 'field "rewards" is required: an array of finite numbers');
  if (!Array.isArray(r.rewards)) throw new BadRequest('bad_type', `field "rewards" must be an array of finite numbers, got ${describe(r.rewards)}`);
  const mask = Array.isArray(r.mask) ? (r.mask as unknown[]) : undefined;
  // JSON has no NaN: a masked rollout's reward may be null.
  const rewards = (r.rewards as unknown[]).map((x, i) => (x === null && mask?.[i] === true ? Number.NaN : x)) as number[];
  const batch: { -readonly [K in keyof Batch]: Batch[K] } = { rewards };
  if (r.prompts !== undefined && r.prompts !== null) batch.prompts = r.prompts as string[];
  if (r.group_ids !== undefined && r.group_ids !== null) batch.groupIds = wireGroupIds(r.group_ids);
  if (r.features !== undefined && r.features !== null) batch.features = r.features as number[][];
  if (r.lengths !== undefined && r.lengths !== null) batch.lengths = r.lengths as number[];
  if (r.greedy_rewards !== undefined && r.greedy_rewards !== null) batch.greedyRewards = r.greedy_rewards as number[];
  if (r.reward_components !== undefined && r.reward_components !== null) batch.rewardComponents = r.reward_components as number[][];
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

  #estimator(spec: CliEstimatorSpec, options: CliEstimatorOptions): Estimator {
    const key = keyOf(spec, options);
    let estimator = this.#estimators.get(key);
    if (estimator === undefined) {
      estimator = cliEstimator(spec, this.#vectorizer, 'rl-adv serve', options);
      if (this.#estimators.size >= CACHE_LIMIT) this.#estimators.clear();
      this.#estimators.set(key, estimator);
    }
    return estimator;
  }

  /** A stateful estimator's step: compute from the session's state, then update it (unless "update": false). */
  #statefulStep(spec: CliEstimatorSpec, r: Record<string, unknown>, batch: Batch): { result: EstimatorResult; name: string } {
    const id = sessionId(r.session, `${typeof spec === 'string' ? spec : spec.name}, which keeps state across requests`);
    const options = this.#statefulOptions(spec, r);
    const create = (): StatefulEstimator => cliStatefulEstimator(spec, this.#vectorizer, 'rl-adv serve', options);
    return this.#sessions.step(id, keyOf(spec, options), create, batch, r.update !== false);
  }

  /** A stateful estimator's options: its parameters at the top level, and the "prompt_value" object. */
  #statefulOptions(spec: CliEstimatorSpec, r: Record<string, unknown>): CliEstimatorOptions {
    return { ...requestOptions(r, spec), ...(r.prompt_value === undefined ? {} : { promptValue: r.prompt_value as CliEstimatorOptions['promptValue'] }) } as CliEstimatorOptions;
  }

  /** load_state_dict: the request's session restored from its "state", for its estimator; returns the session id. */
  #loadStateDict(r: Record<string, unknown>): string {
    const session = sessionId(r.session, 'a load_state_dict request');
    if (r.state === undefined) throw new BadRequest('missing_field', 'field "state" is required: the "state" of a state_dict response', 'state');
    if (r.estimator === undefined) throw new BadRequest('missing_field', 'field "estimator" is required: the "estimator" of a state_dict response', 'estimator');
    const spec = specFromWire(r.estimator, 'estimator');
    const { state, op: _op, ...rest } = r;
    const options = this.#statefulOptions(spec, rest);
    const create = (): StatefulEstimator => {
      if (!isStatefulEstimator(spec)) {
        throw new RlAdvantagesError(`estimator ${JSON.stringify(typeof spec === 'string' ? spec : spec.name)} keeps no state: load_state_dict restores a stateful estimator's session`, {
          code: 'bad_request',
          field: 'estimator',
        });
      }
      return cliStatefulEstimator(spec, this.#vectorizer, 'rl-adv serve', options);
    };
    const explicit = Object.keys(options).length > 0 || (typeof spec === 'object' && Object.keys(spec).some((key) => key !== 'name'));
    this.#sessions.loadStateDict(session, create, explicit, state, this.#vectorizer);
    return session;
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
        const broken = scanBrokenLine(line);
        id = broken.id;
        if (broken.nonFinite) {
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
      if (typeof r.estimator !== 'string' && (typeof r.estimator !== 'object' || r.estimator === null || Array.isArray(r.estimator))) {
        throw new BadRequest('bad_request', `field "estimator" must be an estimator name (${knownNames()}) or an object {"name", parameters...}, got ${describe(r.estimator)}`, 'estimator');
      }
      const spec = specFromWire(r.estimator, 'estimator');
      const stateful = isStatefulEstimator(spec);
      const estimator = stateful ? undefined : this.#estimator(spec, requestOptions(r, spec));
      const batch = requestBatch(r);
      const { result, name } = estimator === undefined ? this.#statefulStep(spec, r, batch) : { result: estimator.compute(batch), name: estimator.name };
      return JSON.stringify({
        id,
        estimator: name,
        advantages: Array.from(result.advantages),
        baselines: Array.from(result.baselines),
        loo_mean: Array.from(result.looMean),
        max_self_weight: result.maxSelfWeight,
        diagnostics: diagnosticsJson(result.diagnostics),
        // Rows the normalisation step drops (zero-variance masking, dropped groups of one): leave them out of the loss.
        ...(result.dropped === undefined ? {} : { dropped: Array.from(result.dropped, (d) => d === 1) }),
      });
    } catch (error) {
      const response: ErrorResponse = { id, error: errorBody(error) };
      return JSON.stringify(response);
    }
  }

  /** A request with an "op": describe (the catalogue). */
  #op(id: RequestId, r: Record<string, unknown>): Record<string, unknown> {
    if (r.op === 'describe') {
      const extra = Object.keys(r).find((key) => key !== 'id' && key !== 'op');
      if (extra !== undefined) throw new BadRequest('unknown_field', `unknown field ${JSON.stringify(extra)}: a describe request is {"id", "op": "describe"}`, extra);
      return { id, ...catalogueJson() };
    }
    if (r.op === 'state_dict') {
      const extra = Object.keys(r).find((key) => key !== 'id' && key !== 'op' && key !== 'session');
      if (extra !== undefined) throw new BadRequest('unknown_field', `unknown field ${JSON.stringify(extra)}: a state_dict request is {"id", "op": "state_dict", "session"}`, extra);
      return { id, ...this.#sessions.stateDict(sessionId(r.session, 'a state_dict request')) };
    }
    if (r.op === 'load_state_dict') return { id, session: this.#loadStateDict(r), loaded: true };
    throw new BadRequest('unknown_op', `unknown op ${describe(r.op)}${typeof r.op === 'string' ? didYouMean(r.op, OPS) : ''}; ops: ${OPS.join(', ')} (an estimator request has no "op")`, 'op');
  }
}

/** The library's names for batch fields are the request's: groupIds is group_ids on the wire. */
function errorBody(error: unknown): ErrorBody {
  if (error instanceof BadRequest) {
    return { code: error.code, message: error.message, ...(error.field === undefined ? {} : { field: error.field }), ...(error.index === undefined ? {} : { index: error.index }) };
  }
  if (error instanceof RlAdvantagesError) {
    return {
      code: error.code,
      message: wireMessage(error.message),
      ...(error.field === undefined ? {} : { field: wireMessage(error.field) }),
      ...(error.index === undefined ? {} : { index: error.index }),
    };
  }
  // A bug, not bad input: still answered, so the client is not left waiting and the server goes on.
  return { code: 'internal_error', message: error instanceof Error ? error.message : String(error) };
}

/** The options of rl-adv serve. */
type ServeOptions = VectorizerOptions & { estimatorModule?: string[]; maxRequestBytes: number; exitWithParent?: boolean };

/** The answer to a line over the limit: its id read from its head, so the client waiting for it gets it. */
function tooLargeResponse(size: number, head: string, limit: number, lineNumber: number): string {
  const error = {
    code: 'too_large',
    message: `line ${lineNumber} is ${size} bytes, over the limit of ${limit} bytes: split the batch, or start rl-adv serve with a larger --max-request-bytes`,
  };
  return JSON.stringify({ id: scanBrokenLine(head).id, error });
}

async function serve(options: ServeOptions, io: CliIo): Promise<void> {
  if (options.exitWithParent === true) watchParent();
  await loadEstimatorModules(options.estimatorModule);
  const handler = new RequestHandler(await loadVectorizer(options, io));
  const input = io.stdin as unknown as Readable;
  let closed = false;
  // The client went away (EPIPE): stop reading, end quietly.
  io.stdout.on('error', () => {
    closed = true;
    input.destroy();
  });
  let lineNumber = 0;
  // Lines end at LF (or CRLF) only: a lone CR is JSON whitespace inside a request, not the end of one.
  for await (const line of requestLines(input, options.maxRequestBytes)) {
    lineNumber++;
    if (closed) break;
    if ('tooLarge' in line) {
      io.stdout.write(tooLargeResponse(line.tooLarge, line.head, options.maxRequestBytes, lineNumber) + '\n');
      continue;
    }
    if (line.text.trim() === '') continue;
    // One write per response, as soon as it is computed: a client waiting on one request gets it.
    io.stdout.write(handler.handle(line.text, lineNumber) + '\n');
  }
}

/** An integer option in [1, max]. */
function boundedInteger(max: number): (value: string) => number {
  const atLeastOne = integerOption(1);
  return (value: string) => {
    const n = atLeastOne(value);
    if (n > max) throw new InvalidArgumentError(`must be at most ${max}.`);
    return n;
  };
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
        '"lengths"? for opo and reinforce_plus_plus_baseline, "greedy_rewards"? for remax, "reward_components"? for gdpo, "mask"? (true = masked, its ' +
        'reward may be null), and the estimator\'s parameters in snake_case, e.g. "normalize", "epsilon", "std_floor"; ' +
        'rl-adv estimators lists them). "estimator" is a name or an object {"name", parameters...}. A field that is ' +
        'none of these is an error naming the closest one. prompt_value keeps state per ' +
        '"session" id: each request computes from it, then updates it (unless "update": false); "prompt_value"? ' +
        'holds its options on the first request. {"id", "op": "state_dict", "session"} answers the session\'s checkpoint ' +
        '{"id", "session", "estimator", "state"}; {"id", "op": "load_state_dict", "session", "estimator", "state"} ' +
        'restores it (answer {"id", "session", "loaded": true}), bit for bit. {"id", "op": "describe"} answers the ' +
        'catalogue (rl-adv estimators --json).\n' +
        'Response: {"id", "estimator" (the canonical name), "advantages", "baselines", "loo_mean", "max_self_weight", "diagnostics": {"groups", ' +
        '"groups_of_one", "zero_variance_groups", "zero_advantage_fraction", "masked"}}. A line that is not ' +
        'JSON, or a bad request, gets {"id" (null if unknown), "error": {"code", "message", "field"?, "index"?}} and the server ' +
        'goes on. Blank lines are skipped. The vectorizer is fitted (or loaded) once at start and each ' +
        'estimator is created once; stdout carries nothing but responses.',
    );
  addEstimatorModuleOption(addVectorizerOptions(command))
    .addOption(
      new Option('--max-request-bytes <n>', `the longest request line; a longer one is answered with error "too_large" (at most ${MAX_REQUEST_BYTES_LIMIT})`)
        .argParser(boundedInteger(MAX_REQUEST_BYTES_LIMIT))
        .default(DEFAULT_MAX_REQUEST_BYTES, '128 MiB'),
    )
    .option('--exit-with-parent', 'exit at once, even mid-request, when the process that started serve ends (the Python client sets it)')
    .action(async (options: ServeOptions) => serve(options, io));
  withExamples(command, [
    `echo '{"id": 1, "estimator": "loo_batch_mean", "rewards": [1, 0, 1]}' | rl-adv serve`,
    `echo '{"id": 1, "op": "describe"}' | rl-adv serve`,
    'rl-adv serve --vectorizer gsm8k-train.tfidf.json < requests.jsonl > responses.jsonl',
  ]);
}
