// The decision methods' names, alone so the spec parser can check them without loading the methods.

/** The decision methods, in the order docs/method.md section 5 describes them; the first is the spec's default. */
export const DECISION_METHOD_NAMES = [
  'paired_hoeffding',
  'paired_empirical_bernstein',
  'paired_exact_binomial',
  'paired_exact_unconditional',
  'paired_tango',
  'paired_newcombe',
] as const;

/** A decision method's name. */
export type DecisionMethodName = (typeof DECISION_METHOD_NAMES)[number];

/** Whether a value names a decision method. */
export function isDecisionMethodName(value: unknown): value is DecisionMethodName {
  return typeof value === 'string' && (DECISION_METHOD_NAMES as readonly string[]).includes(value);
}

/** The methods that need 0/1 outcomes (a criterion with weights (1, -1) or (-1, 1)). */
export const BINARY_DECISION_METHODS: readonly DecisionMethodName[] = [
  'paired_exact_binomial',
  'paired_exact_unconditional',
  'paired_tango',
  'paired_newcombe',
];

/** The asymptotic methods: their coverage is not guaranteed (docs/method.md section 5.7 gives the lowest measured). */
export const ASYMPTOTIC_DECISION_METHODS: readonly DecisionMethodName[] = ['paired_tango', 'paired_newcombe'];

/**
 * The methods whose interval depends on the concordant split (n11, both outcomes 1, against both 0), not only on the
 * discordant counts: their power needs the control arm's accuracy too (docs/method.md section 5.6).
 */
export const CONCORDANT_SPLIT_METHODS: readonly DecisionMethodName[] = ['paired_newcombe'];

/**
 * The lowest coverage measured for each asymptotic method at small n, exact over the counts with a refined search
 * (docs/method.md section 5.7: validation/decision-coverage-refined.mjs for Tango, validation/newcombe-coverage.mjs
 * for Newcombe over every 2x2 table); alpha 0.05, k = 1.
 */
export const ASYMPTOTIC_LOWEST_COVERAGE: Readonly<Partial<Record<DecisionMethodName, { readonly coverage: number; readonly n: number }>>> = {
  paired_tango: { coverage: 0.835, n: 10 },
  paired_newcombe: { coverage: 0.835, n: 10 },
};

/**
 * The words shown beside an asymptotic method's name (help, decide, plan, the report): "asymptotic: lowest measured
 * coverage 0.835 at n = 10"; '' for a method whose coverage is guaranteed.
 */
export function asymptoticWords(method: string): string {
  const low = ASYMPTOTIC_LOWEST_COVERAGE[method as DecisionMethodName];
  return low === undefined ? '' : `asymptotic: lowest measured coverage ${low.coverage.toFixed(3)} at n = ${low.n}`;
}

/**
 * The asymptotic methods with their lowest measured coverage, for a help text: "paired_tango (0.835 at n = 10),
 * paired_newcombe (0.835 at n = 10)".
 */
export function asymptoticMethodsWords(): string {
  return ASYMPTOTIC_DECISION_METHODS.map((m) => {
    const low = ASYMPTOTIC_LOWEST_COVERAGE[m];
    return low === undefined ? m : `${m} (lowest measured coverage ${low.coverage.toFixed(3)} at n = ${low.n})`;
  }).join(', ');
}

/** A method's name, with "(asymptotic: lowest measured coverage ... at n = ...)" after an asymptotic one. */
export function methodLabel(method: string): string {
  const words = asymptoticWords(method);
  return words === '' ? method : `${method} (${words})`;
}
