// Types of validation/seed-robustness-core.mjs, for the test that runs its small version.
export const MARGIN: number;
export const TAU: number;
export const DROP: number;
export type RunLawName = 'normal' | 'skewed' | 'collapse_0.1' | 'collapse_0.2';
export interface RobustPopulation {
  law: RunLawName;
  sigmaU: number;
  muB: number;
  muT: number;
  gamma: number;
  truth: number;
  draw: (rng: () => number) => number;
  shift: number;
}
export function runLaw(law: RunLawName, sigmaU: number, sT0: number): { accuracy: (mu: number) => number; draw: (rng: () => number) => number };
export function cellPopulation(o: { law: RunLawName; seedSd: number; gamma: number; p0: number }): RobustPopulation;
export function study(pop: RobustPopulation, S: number, n: number, rng: () => number, perSeed: boolean): Float64Array[];
export function meanSquares(rows: readonly Float64Array[]): { g: number; seed: number; item: number; error: number };
