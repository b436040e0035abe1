// Types of validation/seed-decision-coverage-core.mjs, for the test that runs its small version.
export function normalExpectation(f: (z: number) => number, points?: number): number;
export function populationAccuracy(mu: number, s: number): number;
export function solveMu(p: number, s: number): number;
export interface Population {
  mu_baseline: number;
  mu_treatment: number;
  sigma_u: number;
  seed_sd: number;
  truth: number;
  tau: number;
  gamma: number;
}
export function population(o: { p0: number; delta: number; seedSd: number; tau: number; gamma: number }): Population;
export function simulateStudy(o: { S: number; n: number; pop: Population; rng: () => number }): Float64Array[];
export function pooledInterval(rows: readonly Float64Array[]): { lower: number; upper: number };
export function singleSeedInterval(rows: readonly Float64Array[]): { lower: number; upper: number };
export function cellCoverage(o: {
  S: number;
  n: number;
  pop: Population;
  rng: () => number;
  replicates: number;
  intervals: (rows: Float64Array[]) => Record<string, { lower: number; upper: number }>;
  fixedItems?: boolean;
}): Record<string, { covered: number; coverage: number; mc_error: number; mean_width: number; coverage_fixed_items?: number; mc_error_fixed_items?: number }>;
export function runAverage(sigmaU: number): (x: number) => number;
export function fixedItemsTruth(rows: Float64Array[], pop: Population, g: (x: number) => number): number;
