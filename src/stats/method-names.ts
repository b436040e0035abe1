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
