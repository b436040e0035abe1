// Types of validation/decision-coverage-core.mjs, for the test that runs its small version.
export function logFactorials(n: number): Float64Array;
export function exactCoverage(o: {
  n: number;
  discordance: number;
  difference: number;
  interval: (n10: number, n01: number) => { lower: number; upper: number };
  full?: boolean;
  eps?: number;
}): { coverage: number; mean_width: number; mass: number; omitted_mass_bound: number };
export function cached<T>(fn: (a: number, b: number) => T): (a: number, b: number) => T;
