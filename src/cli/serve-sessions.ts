// The sessions of rl-adv serve: stateful estimators (prompt_value) kept across requests under a session id, with
// their checkpoints (`{"op": "state_dict"}`) and restores (`{"op": "load_state_dict"}`), bit for bit.
import { RlAdvantagesError } from '../errors.js';
import { RunningNormalization, type RunningNormalizationJSON } from '../estimators/normalization/stateful.js';
import { PromptValueEstimator, type PromptValueJSON, type StatefulEstimator } from '../estimators/prompt-value.js';
import type { Batch, EstimatorResult } from '../estimators/types.js';
import { describe } from '../internal/validate.js';
import type { TfidfVectorizer } from '../text/tfidf.js';

/** Sessions kept at most: state is never dropped silently, a new session beyond is an error. */
export const SESSION_LIMIT = 4096;

/** Creates the stateful estimator a request names (its spec and options already read). */
export type CreateStateful = () => StatefulEstimator;

/**
 * A session id as the wire gives it: a non-empty string or an integer within +-(2^53 - 1) (kept as its string). A
 * larger JSON number has lost its identity in parsing (two sessions would share one state): it is refused.
 */
export function sessionId(value: unknown, what: string): string {
  if ((typeof value === 'string' && value !== '') || Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'number') {
    throw new RlAdvantagesError(`field "session" must be a non-empty string or an integer within +-(2^53 - 1), got ${value}: send such ids as strings`, {
      code: 'bad_type',
      field: 'session',
    });
  }
  throw new RlAdvantagesError(`field "session" is required for ${what}: a non-empty string or a number, got ${describe(value)}`, { code: 'missing_field', field: 'session' });
}

/** What makes two stateful estimators the same for a session: the canonical name and every option. */
function identity(state: { readonly name: string; readonly options: unknown }): string {
  return JSON.stringify([state.name, state.options]);
}

interface Entry {
  readonly identity: string;
  readonly estimator: StatefulEstimator;
}

/**
 * The session table of one server. A session holds one estimator with one set of options: a request that names
 * another (after its defaults are filled in) is refused, whatever the spelling (name, short form or wire object).
 */
export class ServeSessions {
  readonly #sessions = new Map<string, Entry>();
  /** Request key -> the identity of the estimator it creates (creating one is cheap, but it is done once per key). */
  readonly #identities = new Map<string, string>();

  #identityOf(key: string, create: CreateStateful): string {
    let found = this.#identities.get(key);
    if (found === undefined) {
      found = identity(create().toJSON());
      if (this.#identities.size >= 256) this.#identities.clear();
      this.#identities.set(key, found);
    }
    return found;
  }

  #room(id: string): void {
    if (!this.#sessions.has(id) && this.#sessions.size >= SESSION_LIMIT) {
      throw new RlAdvantagesError(`this server keeps at most ${SESSION_LIMIT} sessions`, { code: 'too_many_sessions', field: 'session' });
    }
  }

  /**
   * One step of session `id`: computes from its state, then updates it unless `update` is false. The first
   * request of a session creates its estimator.
   *
   * @param key - the request's estimator and options as one string (equal keys create equal estimators).
   * @throws {@link RlAdvantagesError} `bad_request` (field `session`) when the session holds another estimator or options.
   */
  step(id: string, key: string, create: CreateStateful, batch: Batch, update: boolean): { result: EstimatorResult; name: string } {
    let entry = this.#sessions.get(id);
    if (entry === undefined) {
      this.#room(id);
      const estimator = create();
      entry = { identity: identity(estimator.toJSON()), estimator };
      this.#identities.set(key, entry.identity);
      this.#sessions.set(id, entry);
    } else {
      const asked = this.#identityOf(key, create);
      if (asked !== entry.identity) {
        throw new RlAdvantagesError(
          `session ${JSON.stringify(id)} was started as ${describeIdentity(entry.identity)}, this request names ${describeIdentity(asked)}; a session keeps one estimator and its options`,
          { code: 'bad_request', field: 'session' },
        );
      }
    }
    const result = entry.estimator.compute(batch);
    if (update) entry.estimator.update(batch);
    return { result, name: entry.estimator.name };
  }

  /**
   * The checkpoint of session `id`: `{session, estimator (canonical name), state}` (plain JSON; numbers round-trip).
   *
   * @throws {@link RlAdvantagesError} `unknown_session`.
   */
  stateDict(id: string): { session: string; estimator: string; state: PromptValueJSON | RunningNormalizationJSON } {
    const entry = this.#sessions.get(id);
    if (entry === undefined) {
      throw new RlAdvantagesError(`no session ${JSON.stringify(id)} on this server (sessions: ${this.#sessions.size}); a session starts with its first request`, {
        code: 'unknown_session',
        field: 'session',
      });
    }
    return { session: id, estimator: entry.estimator.name, state: entry.estimator.toJSON() };
  }

  /**
   * Restores session `id` (new, or replacing the one of that id) from a checkpoint of {@link stateDict}. The
   * request's estimator must be the checkpoint's (the same canonical name; when the request gives options, the
   * same options too); the options in force are the checkpoint's.
   *
   * @param explicitOptions - whether the request gave options (beside or inside the estimator).
   * @throws {@link RlAdvantagesError} `bad_checkpoint` naming the field (and index) for a malformed state,
   *   `session_mismatch` for another estimator, `not_restorable` for a user-defined stateful estimator.
   */
  loadStateDict(id: string, create: CreateStateful, explicitOptions: boolean, state: unknown, vectorizer: TfidfVectorizer | undefined): void {
    const fresh = create();
    if (!(fresh instanceof PromptValueEstimator) && !(fresh instanceof RunningNormalization)) {
      throw new RlAdvantagesError(`${fresh.name} is a user-defined stateful estimator, which has no load_state_dict`, { code: 'not_restorable', field: 'estimator' });
    }
    const restored =
      fresh instanceof RunningNormalization
        ? RunningNormalization.fromJSON(state)
        : PromptValueEstimator.fromJSON(state as PromptValueJSON, vectorizer === undefined ? {} : { vectorizer });
    const saved = restored.toJSON();
    const wanted = fresh.toJSON();
    if (saved.name !== wanted.name || (explicitOptions && identity(saved) !== identity(wanted))) {
      throw new RlAdvantagesError(
        `the checkpoint is ${describeIdentity(identity(saved))}, the request names ${describeIdentity(identity(wanted))}: load a checkpoint into the estimator that saved it`,
        { code: 'session_mismatch', field: 'estimator' },
      );
    }
    this.#room(id);
    this.#sessions.set(id, { identity: identity(saved), estimator: restored });
  }
}

function describeIdentity(identity: string): string {
  const [name, options] = JSON.parse(identity) as [string, Record<string, unknown>];
  return `${name} ${JSON.stringify(options)}`;
}
