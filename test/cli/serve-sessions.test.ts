// rl-adv serve's sessions: state_dict / load_state_dict checkpoints resume a prompt_value (or roll_running) session bit for bit, on
// the same or another server; bad checkpoints and mismatched estimators are refused naming the field.
import { describe, expect, it } from 'vitest';
import { RequestHandler } from '../../src/cli/commands/serve.js';
import { sessionId } from '../../src/cli/serve-sessions.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';

const prompts = ['tom has apples', 'ann has pears', 'a train travels', 'a car travels', 'tom buys pears'];
const vectorizer = TfidfVectorizer.fit([...prompts, 'how many apples', 'what is its speed']);

/** Seeded-free, fixed steps: prompts recur, rewards are fractional. */
const steps = [0, 1, 2, 3].map((k) => ({
  prompts: [0, 1, 2, 3, 4, 0, 2].map((i) => prompts[(i + k) % prompts.length] as string),
  rewards: [0.25, 1, 0, 0.5, 0.75, 1, 0.125].map((r, i) => ((i + k) % 3 === 0 ? 1 - r : r)),
}));

function ask(handler: RequestHandler, request: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(handler.handle(JSON.stringify(request), 1)) as Record<string, unknown>;
}

describe.each([
  ['prompt_value', {}],
  ['prompt_value', { prompt_value: { kind: 'beta', decay: 0.8 } }],
  ['prompt_value_tfidf_kernel_loo_T0.1', {}],
  ['roll_running', {}],
])('%s %j: state_dict then load_state_dict', (estimator, options) => {
  it('resumes on another server bit for bit, through JSON text', () => {
    const first = new RequestHandler(vectorizer);
    const second = new RequestHandler(vectorizer);
    const step = (h: RequestHandler, session: string, k: number) => ask(h, { id: k, estimator, session, ...options, ...steps[k] });
    step(first, 'run', 0);
    step(first, 'run', 1);
    const saved = JSON.parse(JSON.stringify(ask(first, { id: 'save', op: 'state_dict', session: 'run' }))) as { session: string; estimator: string; state: unknown };
    expect(saved).toMatchObject({ id: 'save', session: 'run', estimator });
    expect(ask(second, { id: 'load', op: 'load_state_dict', session: 'resumed', estimator: saved.estimator, state: saved.state })).toEqual({ id: 'load', session: 'resumed', loaded: true });
    const resumed = [2, 3].map((k) => {
      const a = step(first, 'run', k);
      const b = step(second, 'resumed', k);
      expect(b.advantages).toEqual(a.advantages);
      expect(b.baselines).toEqual(a.baselines);
      return a;
    });
    expect((ask(second, { id: 1, op: 'state_dict', session: 'resumed' }) as { state: unknown }).state).toEqual((ask(first, { id: 1, op: 'state_dict', session: 'run' }) as { state: unknown }).state);
    // A fresh session computes otherwise: the equality above is the state's doing.
    const fresh = ask(second, { id: 'fresh', estimator, session: 'fresh', update: false, ...options, ...steps[2] });
    expect(fresh.baselines).not.toEqual(resumed[0]?.baselines);
  });
});

describe('session errors', () => {
  it('refuses an unknown session, a malformed checkpoint, another estimator, unknown fields and ops', () => {
    const handler = new RequestHandler(vectorizer);
    expect(ask(handler, { id: 1, op: 'state_dict', session: 'none' })).toMatchObject({ id: 1, error: { code: 'unknown_session' } });
    ask(handler, { id: 2, estimator: 'prompt_value', session: 's', ...steps[0] });
    const { state } = ask(handler, { id: 3, op: 'state_dict', session: 's' }) as { state: { entries: unknown[] } };
    const broken = { ...state, entries: [state.entries[0], ['p', 'x']] };
    expect(ask(handler, { id: 4, op: 'load_state_dict', session: 't', estimator: 'prompt_value', state: broken })).toMatchObject({
      error: { code: 'bad_checkpoint', message: expect.stringMatching(/entries\[1\] must be \[prompt, value\]/) },
    });
    expect(ask(handler, { id: 5, op: 'load_state_dict', session: 't', estimator: 'prompt_value_tfidf_kernel_loo_T0.1', state })).toMatchObject({
      error: { code: 'session_mismatch', message: expect.stringMatching(/the checkpoint is prompt_value .*the request names prompt_value_tfidf_kernel_loo_T0\.1/) },
    });
    expect(ask(handler, { id: 6, op: 'load_state_dict', session: 't', estimator: 'prompt_value', prompt_value: { kind: 'beta' }, state })).toMatchObject({
      error: { code: 'session_mismatch' },
    });
    expect(ask(handler, { id: 7, op: 'load_state_dict', session: 't', estimator: 'group_mean', state })).toMatchObject({ error: { code: 'bad_request', message: expect.stringMatching(/keeps no state/) } });
    expect(ask(handler, { id: 8, op: 'state_dict', session: 's', extra: 1 })).toMatchObject({ error: { code: 'unknown_field' } });
    expect(ask(handler, { id: 9, op: 'load_state_dict', session: 't', estimator: 'prompt_value' })).toMatchObject({ error: { code: 'missing_field' } });
    expect(ask(handler, { id: 10, op: 'stat_dict', session: 's' })).toMatchObject({ error: { code: 'unknown_op' } });
    // A session keeps one estimator and its options; the same estimator in another spelling is the same.
    expect(ask(handler, { id: 11, estimator: 'prompt_value', session: 's', prompt_value: { kind: 'beta' }, ...steps[1] })).toMatchObject({
      error: { code: 'bad_request', message: expect.stringMatching(/session "s" was started as prompt_value/) },
    });
    expect(ask(handler, { id: 12, estimator: 'prompt_value', session: 's', prompt_value: { kind: 'ema', decay: 0.9 }, ...steps[1] })).toHaveProperty('advantages');
    // Loading replaces a session of that id.
    expect(ask(handler, { id: 13, op: 'load_state_dict', session: 's', estimator: 'prompt_value', state })).toMatchObject({ loaded: true });
    expect((ask(handler, { id: 14, op: 'state_dict', session: 's' }) as { state: unknown }).state).toEqual(state);
  });
});

describe('sessionId', () => {
  it('keeps strings and integers within 2^53 - 1 as their strings; refuses a number JSON has not kept exactly', () => {
    expect([sessionId('run-7', 'x'), sessionId(12, 'x'), sessionId(-(2 ** 53 - 1), 'x')]).toEqual(['run-7', '12', '-9007199254740991']);
    for (const bad of [2 ** 53, 1.5, -1e300]) {
      expect(() => sessionId(bad, 'x')).toThrow(expect.objectContaining({ code: 'bad_type', field: 'session', message: expect.stringMatching(/send such ids as strings$/) }));
    }
    expect(() => sessionId('', 'a state_dict request')).toThrow(expect.objectContaining({ code: 'missing_field', field: 'session' }));
  });
});
