// The estimator catalogue: structured specs equal the short names bit for bit, one strict name parser, the JSON
// shape other languages read, unknown options with suggestions, honest defaults, and a user's estimator.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { calibrateBeff } from '../../src/calibration/index.js';
import {
  canonicalEstimatorName,
  catalogueJson,
  createEstimator,
  createStatefulEstimator,
  ESTIMATOR_BASE_NAMES,
  estimatorDescriptors,
  loadKernel,
  looBatchMean,
  registerEstimator,
  RlAdvantagesError,
  specFromWire,
  TfidfVectorizer,
  VERSION,
  type Batch,
  type UserEstimatorDescriptor,
  type EstimatorResult,
} from '../../src/index.js';
import { handKernels } from '../helpers/kernels.js';

const prompts = ['add the apples', 'apples cost two dollars', 'how many hours', 'trains travel at a rate', 'add two apples', 'how many trains'];
const vectorizer = TfidfVectorizer.fit([...prompts, 'the cost of hours']);
/** Every field an estimator may read: 6 rollouts in 3 groups of 2, binary rewards. */
const batch: Batch = {
  rewards: [1, 0, 1, 1, 0, 1],
  prompts,
  groupIds: [0, 0, 1, 1, 2, 2],
  features: prompts.map((_, i) => [1, i / 3, (i % 2) - 0.5]),
  lengths: [3, 5, 2, 7, 4, 6],
  greedyRewards: [0.5, 0.5, 1, 1, 0, 0],
  rewardComponents: [[1, 0], [0, 1], [1, 1], [1, 0], [0, 0], [1, 1]],
};

/** The bytes of every array of a result: equal bytes are equal bits. */
function bits(r: EstimatorResult): number[][] {
  return [r.advantages, r.baselines, r.looMean].map((a) => Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)));
}

/** An estimator's options as the library's messages list them (camelCase, catalogue order). */
function optionsOf(name: string): string {
  return (estimatorDescriptors().find((d) => d.name === name)?.parameters ?? []).map((p) => p.name).join(', ');
}

function thrown(f: () => unknown): RlAdvantagesError {
  try {
    f();
  } catch (error) {
    if (error instanceof RlAdvantagesError) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('the catalogue', () => {
  it('has one descriptor per built-in estimator, in ESTIMATOR_BASE_NAMES order; prompt_value and roll_running keep state', () => {
    const builtIn = estimatorDescriptors().filter((d) => (ESTIMATOR_BASE_NAMES as readonly string[]).includes(d.name));
    expect(builtIn.map((d) => d.name)).toEqual([...ESTIMATOR_BASE_NAMES]);
    expect(builtIn.filter((d) => d.createStateful !== undefined).map((d) => d.name)).toEqual(['prompt_value', 'roll_running']);
    for (const d of builtIn) expect((d.create === undefined) !== (d.createStateful === undefined)).toBe(true);
  });

  it('gives the same bits from a structured spec as from the short name (TF-IDF, pass@k, priors, kernel_loo)', () => {
    const pairs: [string, Record<string, unknown>][] = [
      ['tfidf_kernel_loo_T0.1', { name: 'tfidf_kernel_loo', temperature: 0.1 }],
      ['tfidf_kernel_loo_T0.0000001', { name: 'tfidf_kernel_loo', temperature: 1e-7 }],
      ['passk_k2', { name: 'passk', k: 2 }],
      ['shrinkage_loo_tfidf_kernel_loo_T0.5', { name: 'shrinkage_loo', priorTemperature: 0.5 }],
      ['kernel_loo_T0.25', { name: 'kernel_loo', temperature: 0.25 }],
    ];
    for (const [name, spec] of pairs) {
      const fromName = createEstimator(name, { vectorizer });
      const fromSpec = createEstimator(spec as { name: string }, { vectorizer });
      expect(fromSpec.name).toBe(name);
      expect(fromName.name).toBe(name);
      expect(bits(fromSpec.compute(batch)), name).toEqual(bits(fromName.compute(batch)));
    }
    // The strict TS form the issue asks for: a literal spec object, no cast.
    const strict = createEstimator({ name: 'tfidf_kernel_loo', temperature: 0.1 }, { vectorizer });
    expect(bits(strict.compute(batch))).toEqual(bits(createEstimator('tfidf_kernel_loo_T0.1', { vectorizer }).compute(batch)));
    // The same parameter in the spec, the context or the name agrees; different values are an error.
    const eps = createEstimator({ name: 'group_mean_std', epsilon: 1e-4 }).compute(batch);
    expect(bits(createEstimator('group_mean_std', { epsilon: 1e-4 }).compute(batch))).toEqual(bits(eps));
    expect(createEstimator('kernel_loo_T0.1', { temperature: 0.1 }).name).toBe('kernel_loo_T0.1');
    const clash = thrown(() => createEstimator('kernel_loo_T0.1', { temperature: 0.2 }));
    expect([clash.code, clash.field, clash.message]).toEqual(['conflicting_option', 'temperature', 'temperature is given twice: 0.1 in the name and 0.2 in the options']);
  });

  it('parses names strictly: a number in a name is canonical decimal, else the error shows the canonical spelling', () => {
    const refused: [string, string][] = [
      ['tfidf_kernel_loo_T01', 'write tfidf_kernel_loo_T1 or tfidf_kernel_loo_T0.1'],
      ['tfidf_kernel_loo_T.1', 'write tfidf_kernel_loo_T0.1'],
      ['tfidf_kernel_loo_T1e-1', 'write tfidf_kernel_loo_T0.1'],
      ['tfidf_kernel_loo_T00.1', 'write tfidf_kernel_loo_T0.1'],
      ['tfidf_kernel_loo_T0.10', 'write tfidf_kernel_loo_T0.1'],
      ['tfidf_kernel_loo_T+0.1', 'write tfidf_kernel_loo_T0.1'],
      ['kernel_loo_T2e-3', 'write kernel_loo_T0.002'],
      ['shrinkage_loo_tfidf_kernel_loo_T1.0', 'write shrinkage_loo_tfidf_kernel_loo_T1'],
      ['prompt_value_tfidf_kernel_loo_T.5', 'write prompt_value_tfidf_kernel_loo_T0.5'],
      ['passk_k04', 'write passk_k4'],
      ['tfidf_kernel_loo_T', 'write tfidf_kernel_loo_T<temperature>, e.g. tfidf_kernel_loo_T0.1'],
    ];
    for (const [name, fix] of refused) {
      const error = thrown(() => createEstimator(name, { vectorizer }));
      expect([error.code, error.field], name).toEqual(['bad_name', 'name']);
      expect(error.message, name).toContain(`estimator ${JSON.stringify(name)}: `);
      expect(error.message, name).toMatch(/is not (a decimal number|an integer) in canonical form/);
      expect(error.message.endsWith(fix), name).toBe(true);
    }
    expect(thrown(() => createEstimator('kernel:', {})).message).toBe('estimator "kernel:" names no path: write kernel:<path>, e.g. kernel:kernel.json');
    const unknown = thrown(() => createEstimator('tfidf_kernel_lo_T0.1' as string));
    expect([unknown.code, unknown.message.split(';')[0]]).toEqual(['unknown_estimator', 'unknown estimator "tfidf_kernel_lo_T0.1" (did you mean "tfidf_kernel_loo_T"?)']);
  });

  it('gives the canonical short name of a spec; results carry it', () => {
    expect(canonicalEstimatorName({ name: 'tfidf_kernel_loo', temperature: 0.1 })).toBe('tfidf_kernel_loo_T0.1');
    expect(canonicalEstimatorName({ name: 'passk', k: 4 })).toBe('passk_k4');
    expect(canonicalEstimatorName({ name: 'prompt_value', priorTemperature: 2e-3 })).toBe('prompt_value_tfidf_kernel_loo_T0.002');
    expect(canonicalEstimatorName({ name: 'group_mean', normalize: 'batch' })).toBe('group_mean');
    expect(canonicalEstimatorName('kernel:k.json')).toBe('kernel:k.json');
    expect(canonicalEstimatorName({ name: 'kernel_file', path: 'k.json' })).toBe('kernel:k.json');
    expect(createStatefulEstimator({ name: 'prompt_value', kind: 'beta' }).name).toBe('prompt_value');
  });

  it('refuses an unknown option with the closest known one, in a spec, a context and a wire spec', () => {
    const context = thrown(() => createEstimator('group_mean', { normalise: 'batch' } as never));
    expect([context.code, context.field, context.message]).toEqual([
      'unknown_option',
      'normalise',
      `normalise is not an option of group_mean (did you mean "normalize"?); its options: ${optionsOf('group_mean')}`,
    ]);
    const spec = thrown(() => createEstimator({ name: 'group_mean_std', std_floor: 0.1 }));
    expect(spec.message).toBe(`std_floor is not an option of group_mean_std (did you mean "stdFloor"?); its options: ${optionsOf('group_mean_std')}`);
    expect(thrown(() => createEstimator('length_bucket_loo', { vectorizer, epsilon: 1 })).message).toBe('epsilon is not an option of length_bucket_loo; it takes none');
    expect(bits(createEstimator(specFromWire({ name: 'group_mean_std', std_floor: 0.1 }) as { name: string }).compute(batch))).toEqual(
      bits(createEstimator('group_mean_std', { stdFloor: 0.1 }).compute(batch)),
    );
    expect(thrown(() => specFromWire({ name: 'group_mean_std', stdFloor: 0.1 })).message).toBe('estimator: option names are snake_case: write "std_floor"');
    const bad = thrown(() => createEstimator({ name: 'rloo', singleton: 'one' }));
    expect([bad.code, bad.field, bad.message]).toEqual(['bad_option', 'singleton', expect.stringMatching(/^singleton must be one of 'error', 'zero'(, '[a-z]+')*, got "one"$/)]);
    expect(thrown(() => createEstimator({ name: 'passk', k: 2.5 })).message).toBe('k must be an integer >= 1, got 2.5');
  });

  it("has honest defaults: giving a parameter its descriptor's default changes no bit", () => {
    const required: Record<string, unknown> = { temperature: 0.1, k: 2 };
    for (const d of estimatorDescriptors()) {
      if (d.create === undefined) continue;
      if (d.name === 'kernel_file') continue; // no parameter with a default
      const base = Object.fromEntries(d.parameters.filter((p) => p.required).map((p) => [p.name, required[p.name]]));
      const resources = { vectorizer };
      const plain = createEstimator({ name: d.name, ...base }, resources).compute(batch);
      for (const p of d.parameters) {
        if (p.default === null) continue;
        const explicit = createEstimator({ name: d.name, ...base, [p.name]: p.default }, resources).compute(batch);
        expect(bits(explicit), `${d.name} ${p.name}`).toEqual(bits(plain));
      }
    }
    const plain = createStatefulEstimator('prompt_value').compute(batch);
    const explicit = createStatefulEstimator({ name: 'prompt_value', kind: 'ema', prior: 0.5, priorStrength: 2 }).compute(batch);
    expect(bits(explicit)).toEqual(bits(plain));
  });

  it('reads kernel:PATH in the library, relative to the current directory or context.baseDir', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-adv-catalogue-'));
    writeFileSync(join(dir, 'k.json'), JSON.stringify(handKernels()['length']));
    const byPath = createEstimator({ name: 'kernel_file', path: 'k.json' }, { baseDir: dir });
    const byName = createEstimator('kernel:k.json', { baseDir: dir });
    const absolute = createEstimator(`kernel:${join(dir, 'k.json')}`);
    expect([byPath.name, byName.name]).toEqual(['kernel:k.json', 'kernel:k.json']);
    const expected = bits(byName.compute(batch));
    expect(bits(byPath.compute(batch))).toEqual(expected);
    expect(bits(absolute.compute(batch))).toEqual(expected);
    expect(thrown(() => createEstimator('kernel:missing.json', { baseDir: dir })).code).toBe('bad_kernel');
    // calibrateBeff reads a kernel:PATH it is not given loaded, as createEstimator does.
    const tasks = prompts.map((prompt, k) => ({ taskId: `t${k}`, prompt, rewards: [k % 2, (k + 1) % 3 === 0 ? 1 : 0] }));
    const name = `kernel:${join(dir, 'k.json')}`;
    const read = calibrateBeff(tasks, { estimators: [name], batchSize: 3, batches: 100, seed: 2 });
    const given = calibrateBeff(tasks, { estimators: [name], batchSize: 3, batches: 100, seed: 2, kernels: { [name]: loadKernel(JSON.stringify(handKernels()['length'])) } });
    expect(read.estimators[name]).toEqual(given.estimators[name]);
  });
});

describe('catalogueJson', () => {
  it('is plain JSON of the contract shape, one entry per estimator', () => {
    const json = catalogueJson();
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect([json.protocol, json.version]).toEqual([1, VERSION]);
    expect(json.estimators.map((e) => e.name)).toEqual(estimatorDescriptors().map((d) => d.name));
    const keys = ['name', 'family', 'summary', 'parameters', 'fields', 'needs_vectorizer', 'needs_kernel_file', 'stateful', 'group_of_one', 'sources', 'short_form', 'user_defined'];
    const parameterKeys = ['name', 'type', 'default', 'required', 'minimum', 'maximum', 'exclusive_minimum', 'choices', 'unit', 'description'];
    const wireFields = ['rewards', 'prompts', 'group_ids', 'features', 'mask', 'lengths', 'greedy_rewards', 'reward_components'];
    for (const e of json.estimators) {
      expect(Object.keys(e).sort(), e.name).toEqual([...keys].sort());
      for (const p of e.parameters) {
        expect(Object.keys(p).sort(), `${e.name}.${p.name}`).toEqual([...parameterKeys].sort());
        expect(p.name).toMatch(/^[a-z][a-z0-9_]*$/);
      }
      for (const f of [...e.fields.required, ...e.fields.optional]) expect(wireFields).toContain(f);
      expect(e.fields.required).toContain('rewards');
      for (const s of e.sources) expect(Object.keys(s).sort()).toEqual(['title', 'url']);
    }
    const tfidf = json.estimators.find((e) => e.name === 'tfidf_kernel_loo');
    expect(tfidf).toMatchObject({ short_form: 'tfidf_kernel_loo_T<temperature>', needs_vectorizer: true, fields: { required: ['rewards', 'prompts'], optional: ['mask'] } });
    expect(tfidf?.parameters).toEqual([
      expect.objectContaining({ name: 'temperature', type: 'number', default: null, required: true, exclusive_minimum: 0, minimum: null }),
    ]);
    expect(json.estimators.find((e) => e.name === 'group_mean_std')?.parameters.map((p) => p.name).slice(0, 2)).toEqual(['epsilon', 'std_floor']);
    expect(json.estimators.find((e) => e.name === 'prompt_value')).toMatchObject({ stateful: true, short_form: 'prompt_value_tfidf_kernel_loo_T<prior_temperature>' });
  });
});

describe('registerEstimator', () => {
  const removers: (() => void)[] = [];
  afterEach(() => {
    while (removers.length > 0) (removers.pop() as () => void)();
  });

  /** A user's estimator: the LOO batch mean, computed by the library's own function. */
  const myLoo: UserEstimatorDescriptor = {
    name: 'my_loo',
    family: 'user',
    summary: 'b = the mean reward of the other rollouts (a user copy of loo_batch_mean)',
    parameters: [{ name: 'scale', type: 'number', default: 1, required: false, exclusiveMinimum: 0, description: 'multiplies the advantages' }],
    fields: { required: ['rewards'], optional: [] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'n/a',
    sources: [],
    create: (params) => (b) => {
      const r = looBatchMean(b);
      const scale = (params.scale as number | undefined) ?? 1;
      return { advantages: Array.from(r.advantages, (a) => a * scale), baselines: r.baselines };
    },
  };

  it('makes a user estimator usable by name and spec, with its outputs checked like ours', () => {
    removers.push(registerEstimator(myLoo));
    const direct = looBatchMean(batch);
    const estimator = createEstimator({ name: 'my_loo' });
    expect(bits(estimator.compute(batch))).toEqual(bits(direct));
    expect(estimator.compute(batch).diagnostics).toEqual(direct.diagnostics);
    expect(Array.from(createEstimator({ name: 'my_loo', scale: 2 }).compute(batch).advantages)).toEqual(Array.from(direct.advantages, (a) => a * 2));
    // Masked rollouts are taken out before the user's code runs, as for ours.
    const masked = { rewards: [1, Number.NaN, 0, 1], mask: [false, true, false, false] };
    expect(bits(estimator.compute(masked))).toEqual(bits(looBatchMean(masked)));
    expect(thrown(() => createEstimator({ name: 'my_loo', scal: 2 })).message).toBe('scal is not an option of my_loo (did you mean "scale"?); its options: scale');
    expect(catalogueJson().estimators.at(-1)).toMatchObject({ name: 'my_loo', user_defined: true, fields: { required: ['rewards'], optional: ['mask'] } });
    expect(thrown(() => registerEstimator(myLoo)).code).toBe('duplicate_estimator');
    expect(thrown(() => registerEstimator({ ...myLoo, name: 'group_mean' })).message).toBe('estimator "group_mean" is already in the catalogue; give yours another name');
  });

  it('refuses outputs that are not finite or not one per rollout, naming the estimator and the index', () => {
    removers.push(
      registerEstimator({ ...myLoo, name: 'nan_out', parameters: [], create: () => (b) => ({ advantages: Array.from(b.rewards as number[], (r, i) => (i === 2 ? Number.NaN : r)), baselines: [0, 0, 0, 0, 0, 0] }) }),
      registerEstimator({ ...myLoo, name: 'short_out', parameters: [], create: () => () => ({ advantages: [0], baselines: [0] }) }),
    );
    const nan = thrown(() => createEstimator({ name: 'nan_out' }).compute(batch));
    expect([nan.code, nan.field, nan.index, nan.message]).toEqual(['bad_estimator_output', 'advantages', 2, 'estimator "nan_out" returned advantages[2] = NaN; its outputs must be finite numbers']);
    expect(thrown(() => createEstimator({ name: 'short_out' }).compute(batch)).message).toBe('estimator "short_out" returned 1 advantages for a batch of 6; it must return one per rollout');
    expect(thrown(() => registerEstimator({ ...myLoo, name: 'Bad-Name' })).field).toBe('name');
    expect(thrown(() => registerEstimator({ ...myLoo, name: 'no_factory', create: undefined })).message).toBe('give exactly one of create (one step) and createStateful');
  });

  it('is usable by name in calibrateBeff: a user copy of the reference scores ratio 1', () => {
    removers.push(registerEstimator(myLoo));
    const tasks = prompts.map((prompt, k) => ({ taskId: `t${k}`, prompt, rewards: [k % 2, (k + 1) % 3 === 0 ? 1 : 0, 1] }));
    const result = calibrateBeff(tasks, { estimators: ['my_loo'], batchSize: 3, batches: 200, seed: 1 });
    const mine = result.estimators.my_loo;
    const reference = result.estimators.loo_batch_mean;
    expect(mine?.ratio).toBe(1);
    expect(mine?.mseRaw).toBe(reference?.mseRaw);
  });
});
