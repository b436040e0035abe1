// A built-in, GSM8K-shaped question set whose prompts come in families (as AutomationBench's do and GSM8K's do
// not), for `rl-adv study --sim-questions clustered`. On GSM8K the TF-IDF kernel at T = 0.1 sees nearly uniform
// weights (docs/sim.md), so no difficulty structure lets it beat the batch mean; on these families it can.
// It is synthetic data for the simulation only: the questions are templates, not a benchmark.
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../../errors.js';
import { checkPositiveInteger } from '../../internal/validate.js';

/** The question sets of the simulated backend: the real GSM8K questions, or the built-in clustered set. */
export const SIM_QUESTION_SETS = ['gsm8k', 'clustered'] as const;
export type SimQuestionSet = (typeof SIM_QUESTION_SETS)[number];

/** The question sets a study can run on: the simulator's and `arith`. */
export type StudyQuestionSet = SimQuestionSet | 'arith';

/** One question as GSM8K's JSON lines hold it: the text and a worked solution ending `#### <number>`. */
export interface QuestionRow {
  readonly question: string;
  readonly answer: string;
}

/** A generated question: a GSM8K-shaped row and the index of its family in `CLUSTERED_FAMILIES`. */
export interface ClusteredQuestion extends QuestionRow {
  readonly family: number;
}

/** A train and a test split, as GSM8K's train.jsonl and test.jsonl. */
export interface ClusteredQuestionSet {
  readonly train: readonly ClusteredQuestion[];
  readonly test: readonly ClusteredQuestion[];
}

/**
 * One family: a question template over a name and three numbers, with its own topic words, and the arithmetic
 * that answers it. Placeholders: `{name}`, `{a}`, `{b}`, `{c}`.
 */
export interface QuestionFamily {
  /** A short label (used in docs and tests only). */
  readonly topic: string;
  readonly template: string;
  /** The worked solution's lines (GSM8K style, with `<<expr=value>>` calculator notes) and the final answer. */
  readonly solve: (a: number, b: number, c: number) => { readonly lines: readonly string[]; readonly value: number };
}

/**
 * Function words and a few generic ones (`named`, `holds`, `before`, `along`) every family may use; every other word
 * of a template belongs to its family alone (a test checks it).
 */
export const CLUSTERED_COMMON_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'of', 'in', 'on', 'at', 'to', 'for', 'with', 'from', 'by', 'into', 'per', 'each', 'every',
  'all', 'how', 'many', 'much', 'what', 'does', 'do', 'is', 'are', 'there', 'then', 'more', 'total', 'altogether',
  'has', 'have', 'gets', 'his', 'her', 'their', 'they', 'if', 'so', 'than', 'also', 'after', 'other', 'named', 'holds',
  'before', 'along',
]);

const mul = (x: number, y: number): string => `${x} * ${y} = <<${x}*${y}=${x * y}>>${x * y}`;
const add = (x: number, y: number): string => `${x} + ${y} = <<${x}+${y}=${x + y}>>${x + y}`;

/**
 * The families, in order; the built-in set uses the first `CLUSTERED_DEFAULT_FAMILIES`. Each template's topic
 * words (all but `CLUSTERED_COMMON_WORDS`) are disjoint from every other family's. The numbers are single
 * digits, which the TF-IDF tokenizer (tokens of two or more word characters) drops, and the names few, so two
 * questions of one family have a TF-IDF cosine near 0.97 and two of different families near 0.06 (docs/sim.md).
 */
export const CLUSTERED_FAMILIES: readonly QuestionFamily[] = Object.freeze([
  {
    topic: 'bakery',
    template: '{name} bakes {a} trays of sourdough bread each morning with {b} loaves on every tray and sells each loaf at the bakery stall for {c} coins. How many coins does the bakery stall earn?',
    solve: (a, b, c) => ({ lines: [`${mul(a, b)} loaves are baked.`, `The stall earns ${mul(a * b, c)} coins.`], value: a * b * c }),
  },
  {
    topic: 'freight train',
    template: 'A freight locomotive pulls {a} wagons of coal through a mountain tunnel, and each wagon carries {b} tons. {name} hauls {c} more tons by truck. How many tons are hauled?',
    solve: (a, b, c) => ({ lines: [`The wagons carry ${mul(a, b)} tons.`, `With the truck: ${add(a * b, c)} tons.`], value: a * b + c }),
  },
  {
    topic: 'greenhouse',
    template: '{name} plants {a} rows of tomato seedlings in the greenhouse with {b} seedlings per row, then pots {c} spare seedlings. How many tomato seedlings grow in the greenhouse?',
    solve: (a, b, c) => ({ lines: [`The rows hold ${mul(a, b)} seedlings.`, `With the spares: ${add(a * b, c)} seedlings.`], value: a * b + c }),
  },
  {
    topic: 'aquarium',
    template: 'The aquarium has {a} tanks of tropical fish, and every tank holds {b} goldfish and {c} guppies. How many fish does the aquarium keeper {name} feed?',
    solve: (a, b, c) => ({ lines: [`Each tank holds ${add(b, c)} fish.`, `All tanks: ${mul(a, b + c)} fish.`], value: a * (b + c) }),
  },
  {
    topic: 'knitting',
    template: '{name} knits {a} woolen scarves a week for {b} weeks before the craft fair and uses {c} skeins of yarn per scarf. How many skeins of yarn are knitted?',
    solve: (a, b, c) => ({ lines: [`${mul(a, b)} scarves are knitted.`, `They use ${mul(a * b, c)} skeins.`], value: a * b * c }),
  },
  {
    topic: 'library',
    template: 'A library shelf holds {a} encyclopedias, and the librarian {name} catalogs {b} volumes of poetry and {c} novels beside them. How many books are on the library shelf?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} books, then ${add(a + b, c)} books.`], value: a + b + c }),
  },
  {
    topic: 'cycling',
    template: '{name} cycles {a} kilometers along the river trail on Saturday, {b} kilometers on Sunday and {c} kilometers on Monday. How many kilometers does the cyclist ride on the trail?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} kilometers, then ${add(a + b, c)} kilometers.`], value: a + b + c }),
  },
  {
    topic: 'orchestra',
    template: 'The orchestra rehearses {a} symphonies, each with {b} movements for violins and cellos, and {name} conducts {c} encores. How many movements and encores are conducted?',
    solve: (a, b, c) => ({ lines: [`The symphonies have ${mul(a, b)} movements.`, `With the encores: ${add(a * b, c)}.`], value: a * b + c }),
  },
  {
    topic: 'pottery',
    template: '{name} shapes {a} ceramic vases in the pottery studio, glazes {b} mugs in the kiln and paints {c} bowls. How many pottery pieces leave the studio?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} pieces, then ${add(a + b, c)} pieces.`], value: a + b + c }),
  },
  {
    topic: 'beekeeping',
    template: 'A beekeeper named {name} tends {a} hives, and each hive produces {b} jars of honey in summer and {c} jars in autumn. How many jars of honey does the apiary fill?',
    solve: (a, b, c) => ({ lines: [`Each hive fills ${add(b, c)} jars.`, `The apiary fills ${mul(a, b + c)} jars.`], value: a * (b + c) }),
  },
  {
    topic: 'chess',
    template: 'At the chess club tournament {name} plays {a} rounds on {b} boards, and each board hosts {c} matches per round. How many chess matches are played?',
    solve: (a, b, c) => ({ lines: [`Each round has ${mul(b, c)} matches.`, `All rounds: ${mul(a, b * c)} matches.`], value: a * b * c }),
  },
  {
    topic: 'sailing',
    template: 'The harbor marina docks {a} sailboats, and the sailor {name} ties {b} knots of rope on each sailboat plus {c} knots on the pier. How many knots are tied at the marina?',
    solve: (a, b, c) => ({ lines: [`The sailboats take ${mul(a, b)} knots.`, `With the pier: ${add(a * b, c)} knots.`], value: a * b + c }),
  },
  {
    topic: 'astronomy',
    template: 'An astronomer named {name} charts {a} constellations with the observatory telescope on {b} clear nights, spotting {c} bright stars in each constellation. How many stars are charted?',
    solve: (a, b, c) => ({ lines: [`Each night: ${mul(a, c)} stars.`, `All nights: ${mul(b, a * c)} stars.`], value: a * b * c }),
  },
  {
    topic: 'soccer',
    template: 'The soccer striker {name} scores {a} goals in the league season, {b} goals in the cup and {c} goals in friendlies. How many goals does the striker score?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} goals, then ${add(a + b, c)} goals.`], value: a + b + c }),
  },
  {
    topic: 'mosaic',
    template: 'A mosaic artist named {name} covers a mural wall with {a} panels of colorful tiles, laying {b} tiles on each panel and {c} extra tiles along the border. How many tiles are laid?',
    solve: (a, b, c) => ({ lines: [`The panels take ${mul(a, b)} tiles.`, `With the border: ${add(a * b, c)} tiles.`], value: a * b + c }),
  },
  {
    topic: 'dairy farm',
    template: 'The dairy farmer {name} milks {a} cows in the barn for {b} days, and each cow gives {c} gallons of milk a day before grazing in the pasture. How many gallons of milk are collected?',
    solve: (a, b, c) => ({ lines: [`Each day: ${mul(a, c)} gallons.`, `All days: ${mul(b, a * c)} gallons.`], value: a * b * c }),
  },
]);

/** Names the templates use; shared by every family, so they carry no family signal. */
const NAMES = ['Ava', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay'];
/** The numbers are uniform in 2..9. */
const NUMBER_MIN = 2;
const NUMBER_COUNT = 8;

/**
 * Families in the built-in set. Fewer families give each calibration task more same-family neighbours in a batch
 * of 32 drawn from the 64 held-out tasks; more families give more independent family difficulties. Eight is the
 * best trade-off measured (docs/sim.md: with 6, 12 or 16 families the gate passes for fewer seeds).
 */
export const CLUSTERED_DEFAULT_FAMILIES = 8;

/** Options of {@link clusteredQuestions}. */
export interface ClusteredQuestionsOptions {
  /** Train questions; default 7473 (GSM8K's train split). */
  readonly train?: number;
  /** Test questions; default 1319 (GSM8K's test split). */
  readonly test?: number;
  /** How many of `CLUSTERED_FAMILIES` to use (the first ones); default `CLUSTERED_DEFAULT_FAMILIES`. */
  readonly families?: number;
  /** The generator's seed (seedrandom); default `CLUSTERED_QUESTIONS_SEED`. */
  readonly seed?: string;
}

/** The seed of the built-in set: `rl-adv study --sim-questions clustered` always uses this one. */
export const CLUSTERED_QUESTIONS_SEED = 'rl-adv/clustered-questions/v1';

/**
 * A GSM8K-shaped question set of templated families: every question picks a family, a name and three numbers in
 * 2..9, all uniformly, and is unique across both splits (a repeat is drawn again). Answers are the templates'
 * arithmetic, written as GSM8K's worked solutions (`<<expr=value>>` notes, last line `#### <value>`), so
 * `gsm8kReferenceAnswer` reads them.
 *
 * The default set (7473 train and 1319 test questions, GSM8K's sizes; `CLUSTERED_DEFAULT_FAMILIES` families;
 * seed `CLUSTERED_QUESTIONS_SEED`) is what `rl-adv study --sim-questions clustered` uses. Randomness comes
 * only from seedrandom: the same options give the same rows on every machine.
 *
 * @throws {RlAdvantagesError} `bad_integer` when a size or `families` is not a positive integer; `bad_option`
 *   when `families` exceeds `CLUSTERED_FAMILIES`.length or the families hold fewer distinct questions than
 *   `train + test`.
 * @example
 * ```ts
 * const { train, test } = clusteredQuestions();
 * train.length; // 7473
 * test[0]?.answer.split('\n').at(-1); // '#### <the value>'
 * ```
 */
export function clusteredQuestions(options: ClusteredQuestionsOptions = {}): ClusteredQuestionSet {
  const trainCount = checkPositiveInteger('train', options.train ?? 7473);
  const testCount = checkPositiveInteger('test', options.test ?? 1319);
  const familyCount = checkPositiveInteger('families', options.families ?? CLUSTERED_DEFAULT_FAMILIES);
  if (familyCount > CLUSTERED_FAMILIES.length) {
    throw new RlAdvantagesError(`families must be at most ${CLUSTERED_FAMILIES.length}, got ${familyCount}`, {
      code: 'bad_option',
      field: 'families',
    });
  }
  // Distinct questions a family can produce; asking for more than half of them all would make the redraws slow.
  const capacity = familyCount * NAMES.length * NUMBER_COUNT ** 3;
  if (2 * (trainCount + testCount) > capacity) {
    throw new RlAdvantagesError(
      `train + test must be at most ${capacity / 2} with ${familyCount} families (${familyCount} x ${capacity / familyCount / 2} distinct questions), got ${trainCount + testCount}`,
      { code: 'bad_option', field: 'train' },
    );
  }
  const rng = seedrandom(options.seed ?? CLUSTERED_QUESTIONS_SEED);
  const pick = (n: number): number => Math.floor(rng() * n);
  const seen = new Set<string>();
  const make = (count: number): ClusteredQuestion[] => {
    const rows: ClusteredQuestion[] = [];
    while (rows.length < count) {
      const index = pick(familyCount);
      const family = CLUSTERED_FAMILIES[index] as QuestionFamily;
      const name = NAMES[pick(NAMES.length)] as string;
      const a = NUMBER_MIN + pick(NUMBER_COUNT);
      const b = NUMBER_MIN + pick(NUMBER_COUNT);
      const c = NUMBER_MIN + pick(NUMBER_COUNT);
      const question = family.template
        .replaceAll('{name}', name)
        .replaceAll('{a}', String(a))
        .replaceAll('{b}', String(b))
        .replaceAll('{c}', String(c));
      // A repeat would put one question in both splits (GSM8K has none): draw again.
      if (seen.has(question)) continue;
      seen.add(question);
      const { lines, value } = family.solve(a, b, c);
      rows.push({ question, answer: `${lines.join('\n')}\n#### ${value}`, family: index });
    }
    return rows;
  };
  const train = make(trainCount);
  const test = make(testCount);
  return { train, test };
}

/**
 * Rows as GSM8K's JSON-lines files hold them: `{"question": ..., "answer": ...}` and a newline per row (other
 * fields, such as a generated row's `family`, are left out). `rl-adv study` hashes the built-in set's two splits in
 * this form, so its data sha256 is what writing them to train.jsonl and test.jsonl would give.
 *
 * @example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * const { train, test } = clusteredQuestions();
 * writeFileSync('clustered/train.jsonl', questionsJsonl(train));
 * writeFileSync('clustered/test.jsonl', questionsJsonl(test));
 * ```
 */
export function questionsJsonl(rows: readonly QuestionRow[]): string {
  return rows.map((row) => `${JSON.stringify({ question: row.question, answer: row.answer })}\n`).join('');
}
