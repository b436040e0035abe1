import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { beffFromFigures, beffRatioFromFigures } from '../../src/calibration/figures.js';
import { RlAdvantagesError } from '../../src/errors.js';

describe('beffRatioFromFigures', () => {
  it("reproduces the record's ratio 0.976 (shared/seed/gs1-vs-grpo-record.txt: 0.9762)", () => {
    // (0.1275 + 0.1622) / (0.1275 + 0.1692) = 0.2897 / 0.2967
    const ratio = beffRatioFromFigures({ sigmaEps2: 0.1275, mseCorrectedReference: 0.1622, mseCorrectedEstimator: 0.1692 });
    expect(ratio).toBeCloseTo(0.2897 / 0.2967, 15);
    expect(ratio.toFixed(3)).toBe('0.976');
    // The record's 0.9762 came from unrounded figures; the 4-digit figures give 0.97641.
    expect(Math.abs(ratio - 0.9762)).toBeLessThan(5e-4);
  });

  it('equals the ratio of the two B_eff figures', () => {
    const figures = { sigmaEps2: 0.1275, mseCorrectedReference: 0.1622, mseCorrectedEstimator: 0.1692 };
    const ref = beffFromFigures({ batchSize: 32, sigmaEps2: 0.1275, mseCorrected: 0.1622 });
    const est = beffFromFigures({ batchSize: 32, sigmaEps2: 0.1275, mseCorrected: 0.1692 });
    expect(est / ref).toBeCloseTo(beffRatioFromFigures(figures), 14);
    expect(ref).toBeCloseTo((32 * 0.1275) / 0.2897, 12);
  });

  test.prop([fc.double({ min: 1e-3, max: 10, noNaN: true }), fc.double({ min: 0, max: 10, noNaN: true })])(
    'a perfect estimator (MSE_corrected 0) has B_eff = B, and an estimator compared with itself has ratio 1',
    (sigma, mse) => {
      expect(beffFromFigures({ batchSize: 32, sigmaEps2: sigma, mseCorrected: 0 })).toBeCloseTo(32, 12);
      expect(beffRatioFromFigures({ sigmaEps2: sigma, mseCorrectedReference: mse, mseCorrectedEstimator: mse })).toBe(1);
    },
  );

  it('refuses figures that give no positive advantage variance', () => {
    expect(() => beffRatioFromFigures({ sigmaEps2: 0.1, mseCorrectedReference: 0.1, mseCorrectedEstimator: -0.1 })).toThrow(
      /mseCorrectedEstimator must be > 0/,
    );
    expect(() => beffRatioFromFigures({ sigmaEps2: -1, mseCorrectedReference: 0.1, mseCorrectedEstimator: 0.1 })).toThrow(
      /sigmaEps2 must be >= 0/,
    );
    expect(() => beffRatioFromFigures({ sigmaEps2: NaN, mseCorrectedReference: 0.1, mseCorrectedEstimator: 0.1 })).toThrow(
      RlAdvantagesError,
    );
    expect(() => beffFromFigures({ batchSize: 0, sigmaEps2: 0.1, mseCorrected: 0.1 })).toThrow(/batchSize/);
  });
});
