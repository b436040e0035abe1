// kernel.json: validation naming the field path, immutability, and bit-for-bit round trips (docs/method.md
// section 2.4).
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError, TEXT_FEATURE_NAMES, createEstimator, kernelFileJson, loadKernel } from '../../src/index.js';
import { handKernels } from '../helpers/kernels.js';

const d = TEXT_FEATURE_NAMES.length;
const std = { names: [...TEXT_FEATURE_NAMES], means: Array.from({ length: d }, (_, i) => i / 7), sds: Array.from({ length: d }, (_, i) => 1 + i / 3) };


const prompts = [
  'Tom has 3 apples and buys 2 more. How many apples?',
  'A train travels at 60 mph for 3 hours. How far does it go?',
  'Sara earns $12 per hour. She works 5 hours a day for 4 days. What does she earn in total?',
  'Half of the 40 students like math. How many do not?',
  'Tom has 3 apples and buys 2 more. How many apples?',
  'What is 7 times 8?',
];
const rewards = [1, 0, 0, 1, 0.9, -0.1];

describe('loadKernel', () => {
  it.each(Object.keys(handKernels()))('loads a %s kernel, frozen, and round-trips it bit for bit', (family) => {
    const kernel = loadKernel(handKernels()[family]);
    expect(kernel.family).toBe(family);
    expect(Object.isFrozen(kernel.file)).toBe(true);
    expect(Object.isFrozen(kernel.file.params)).toBe(true);
    const again = loadKernel(JSON.parse(kernelFileJson(kernel)));
    expect(kernelFileJson(again)).toBe(kernelFileJson(kernel));
    const a = createEstimator('kernel_file', { kernel }).compute({ rewards, prompts });
    const b = createEstimator('kernel_file', { kernel: again }).compute({ rewards, prompts });
    expect(Array.from(b.baselines)).toEqual(Array.from(a.baselines));
    for (const v of a.baselines) expect(Number.isFinite(v)).toBe(true);
  });

  it('accepts the file text as well as the parsed object', () => {
    const kernel = loadKernel(JSON.stringify(handKernels().length));
    expect(kernel.family).toBe('length');
  });

  it.each([
    [{ format: 'other' }, 'kernel.format'],
    [{ version: 2 }, 'kernel.version'],
    [{ family: 'magic' }, 'kernel.family'],
    [{ params: { measure: 'chars', kernel: 'gaussian', bandwidth: -1 } }, 'kernel.params.bandwidth'],
    [{ params: { measure: 'lines', kernel: 'gaussian', bandwidth: 1 } }, 'kernel.params.measure'],
    [{ fitted: { sd: 0.75, scale: 0.5 } }, 'kernel.fitted.scale'],
    [{ fitted: { sd: 'x', scale: 0.5 } }, 'kernel.fitted.sd'],
    [{ provenance: { held_out: { ratio: 'high' } } }, 'kernel.provenance.held_out.ratio'],
  ])('names the bad field: %j -> %s', (patch, field) => {
    const json = { ...(handKernels().length as object), ...patch };
    try {
      loadKernel(json);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).field).toBe(field);
      expect((error as Error).message.startsWith(field)).toBe(true);
    }
  });

  it('names a bad fitted part inside a product factor', () => {
    const json = handKernels().product as { fitted: { factors: unknown[] } };
    json.fitted.factors[1] = { ...std, sds: [...std.sds.slice(1), 0] };
    expect(() => loadKernel(json)).toThrow(/^kernel\.fitted\.factors\[1\]\.sds\[11\] must be a finite number > 0/);
  });

  it('is not changed by later edits of the object it was given', () => {
    const json = handKernels().length as { params: { bandwidth: number } };
    const kernel = loadKernel(json);
    json.params.bandwidth = 99;
    expect((kernel.file.params as { bandwidth: number }).bandwidth).toBe(0.5);
  });
});
