// Types of validation/heldout-truth-core.mjs, for its test.
export function batchExpectedError(energy: ((a: number, b: number) => number) | null, p: ArrayLike<number>, batch: ArrayLike<number>): number;
export function truthRatio(s2: number, referenceErrors: readonly number[], kernelErrors: readonly (readonly number[])[]): { ratio: number; se: number };
