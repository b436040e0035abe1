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
export interface MissRegions {
  from: Int32Array;
  to: Int32Array;
  rows?: Map<number, Uint8Array>;
}
export function missProbability(n: number, delta: number, D: number, from: Int32Array, to: Int32Array, lf: Float64Array, rows?: Map<number, Uint8Array>): number;
export function arcsineGrid(lo: number, points: number): number[];
export function worstOverD(n: number, delta: number, regions: MissRegions, lf: Float64Array, points?: number): { coverage: number; D: number };
export interface IntervalTable {
  n: number;
  offset: Int32Array;
  lower: Float64Array;
  upper: Float64Array;
  monotone: Uint8Array;
}
export function intervalTable(n: number, interval: (n10: number, n01: number) => { lower: number; upper: number }): IntervalTable;
export function regionsAtDelta(table: IntervalTable, delta: number): Required<MissRegions>;
export function refinedMinimum(
  n: number,
  regionsAt: (delta: number) => MissRegions,
  o: { step: number; points?: number },
): { coverage: number; difference: number; discordance: number; evaluations: number };
