// A built-in, GSM8K-shaped question set whose prompts come in families (as AutomationBench's do and GSM8K's do
// not), for `rl-adv study --sim-questions clustered`. On GSM8K the TF-IDF kernel at T = 0.1 sees nearly uniform
// weights (docs/sim.md), so no difficulty structure lets it beat the batch mean; on these families it can.
// It is synthetic data for the simulation only: the questions are templates, not a benchmark.
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../../errors.js';
import { checkPositiveInteger } from '../../internal/validate.js';

/** One question as GSM8K's JSON lines hold it: the text and a worked solution ending `#### <number>`. */
export interface QuestionRow {
  readonly question: string;
  readonly answer: string;
}

/** A generated question: a GSM8K-shaped row and the index of its family in {@link CLUSTERED_FAMILIES}. */
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

/** Function words every family may use; every other word of a template belongs to its family alone. */
export const CLUSTERED_COMMON_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'and', 'of', 'in', 'on', 'at', 'to', 'for', 'with', 'from', 'by', 'into', 'per', 'each', 'every',
  'all', 'how', 'many', 'much', 'what', 'does', 'do', 'is', 'are', 'there', 'then', 'more', 'total', 'altogether',
  'has', 'have', 'gets', 'his', 'her', 'their', 'they', 'if', 'so', 'than', 'also', 'after', 'other',
]);

const mul = (x: number, y: number): string => `${x} * ${y} = <<${x}*${y}=${x * y}>>${x * y}`;
const add = (x: number, y: number): string => `${x} + ${y} = <<${x}+${y}=${x + y}>>${x + y}`;

/**
 * The 24 families. Each template's topic words (all but {@link CLUSTERED_COMMON_WORDS}) are disjoint from every
 * other family's, so two questions of one family have a TF-IDF cosine near 0.7 and two of different families
 * near 0.05 (docs/sim.md has the measured figures).
 */
export const CLUSTERED_FAMILIES: readonly QuestionFamily[] = Object.freeze([
  {
    topic: 'bakery',
    template: '{name} bakes {a} loaves of sourdough bread each morning and sells each loaf at the bakery stall for {b} coins. How many coins does the bakery stall earn?',
    solve: (a, b) => ({ lines: [`The stall earns ${mul(a, b)} coins.`], value: a * b }),
  },
  {
    topic: 'freight train',
    template: 'A freight locomotive pulls {a} wagons of coal through a mountain tunnel, and each wagon carries {b} tons. {name} hauls {c} more tons by truck. How many tons are hauled?',
    solve: (a, b, c) => ({ lines: [`The wagons carry ${mul(a, b)} tons.`, `With the truck: ${add(a * b, c)} tons.`], value: a * b + c }),
  },
  {
    topic: 'greenhouse',
    template: '{name} plants {a} rows of tomato seedlings in the greenhouse with {b} seedlings per row. How many tomato seedlings grow in the greenhouse?',
    solve: (a, b) => ({ lines: [`There are ${mul(a, b)} seedlings.`], value: a * b }),
  },
  {
    topic: 'aquarium',
    template: 'The aquarium has {a} tanks of tropical fish, and every tank holds {b} goldfish and {c} guppies. How many fish does the aquarium keeper {name} feed?',
    solve: (a, b, c) => ({ lines: [`Each tank holds ${add(b, c)} fish.`, `All tanks: ${mul(a, b + c)} fish.`], value: a * (b + c) }),
  },
  {
    topic: 'knitting',
    template: '{name} knits {a} woolen scarves a week for the craft fair and uses {b} skeins of yarn per scarf. How many skeins of yarn are knitted?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} skeins are knitted.`], value: a * b }),
  },
  {
    topic: 'library',
    template: 'A library shelf holds {a} encyclopedias, and the librarian {name} catalogs {b} volumes of poetry and {c} novels beside them. How many books are on the library shelf?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} books, then ${add(a + b, c)} books.`], value: a + b + c }),
  },
  {
    topic: 'cycling',
    template: '{name} cycles {a} kilometers along the river trail on Saturday and {b} kilometers on Sunday. How many kilometers does the cyclist ride on the trail?',
    solve: (a, b) => ({ lines: [`The cyclist rides ${add(a, b)} kilometers.`], value: a + b }),
  },
  {
    topic: 'orchestra',
    template: 'The orchestra rehearses {a} symphonies, each with {b} movements for violins and cellos. {name} conducts every movement. How many movements are conducted?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} movements are conducted.`], value: a * b }),
  },
  {
    topic: 'pottery',
    template: '{name} shapes {a} ceramic vases in the pottery studio and glazes {b} mugs in the kiln. How many pottery pieces leave the studio?',
    solve: (a, b) => ({ lines: [`${add(a, b)} pieces leave the studio.`], value: a + b }),
  },
  {
    topic: 'beekeeping',
    template: 'A beekeeper named {name} tends {a} hives, and each hive produces {b} jars of honey in summer. How many jars of honey does the apiary fill?',
    solve: (a, b) => ({ lines: [`The apiary fills ${mul(a, b)} jars.`], value: a * b }),
  },
  {
    topic: 'chess',
    template: 'At the chess club tournament {name} plays {a} rounds on {b} boards, and each board hosts one match per round. How many chess matches are played?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} matches are played.`], value: a * b }),
  },
  {
    topic: 'sailing',
    template: 'The harbor marina docks {a} sailboats, and the sailor {name} ties {b} knots of rope on each sailboat. How many knots are tied at the marina?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} knots are tied.`], value: a * b }),
  },
  {
    topic: 'astronomy',
    template: 'An astronomer named {name} spots {a} constellations through the observatory telescope on clear nights, with {b} bright stars in each constellation. How many stars are charted?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} stars are charted.`], value: a * b }),
  },
  {
    topic: 'soccer',
    template: 'The soccer striker {name} scores {a} goals in the league season and {b} goals in the cup. How many goals does the striker score?',
    solve: (a, b) => ({ lines: [`The striker scores ${add(a, b)} goals.`], value: a + b }),
  },
  {
    topic: 'mosaic',
    template: 'A mosaic artist named {name} covers a mural wall with {a} panels of colorful tiles, laying {b} tiles on each panel and {c} spare tiles along the border. How many tiles are laid?',
    solve: (a, b, c) => ({ lines: [`The panels take ${mul(a, b)} tiles.`, `With the border: ${add(a * b, c)} tiles.`], value: a * b + c }),
  },
  {
    topic: 'dairy farm',
    template: 'The dairy farmer {name} milks {a} cows in the barn, and each cow gives {b} gallons of milk before grazing in the pasture. How many gallons of milk are collected?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} gallons are collected.`], value: a * b }),
  },
  {
    topic: 'camping',
    template: '{name} pitches {a} tents at the forest campsite, and {b} campers roast marshmallows over the campfire beside each tent. How many campers roast marshmallows?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} campers roast marshmallows.`], value: a * b }),
  },
  {
    topic: 'robotics',
    template: 'The robotics engineer {name} assembles {a} robots, wiring {b} sensors and {c} batteries into each circuit board. How many electronic components are wired?',
    solve: (a, b, c) => ({ lines: [`Each robot takes ${add(b, c)} components.`, `All robots: ${mul(a, b + c)} components.`], value: a * (b + c) }),
  },
  {
    topic: 'theater',
    template: 'The theater troupe stages {a} scenes, and {name} sews {b} costumes for the actors in each scene before rehearsal. How many costumes are sewn?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} costumes are sewn.`], value: a * b }),
  },
  {
    topic: 'pizzeria',
    template: 'The pizzeria chef {name} slices {a} pepperoni pizzas into {b} wedges from the brick oven. How many pizza wedges are served?',
    solve: (a, b) => ({ lines: [`${mul(a, b)} wedges are served.`], value: a * b }),
  },
  {
    topic: 'postal route',
    template: 'The postal carrier {name} delivers {a} parcels and {b} envelopes along the mail route, then stamps {c} letters at the post office. How many items does the carrier handle?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} on the route, then ${add(a + b, c)} items.`], value: a + b + c }),
  },
  {
    topic: 'swimming',
    template: 'The swimmer {name} swims {a} laps of freestyle and {b} laps of backstroke in the pool lane. How many laps does the swimmer finish?',
    solve: (a, b) => ({ lines: [`The swimmer finishes ${add(a, b)} laps.`], value: a + b }),
  },
  {
    topic: 'recycling',
    template: 'The recycling volunteer {name} empties {a} bins, sorting {b} plastic bottles and {c} aluminum cans out of each bin. How many recyclables are sorted?',
    solve: (a, b, c) => ({ lines: [`Each bin yields ${add(b, c)} recyclables.`, `All bins: ${mul(a, b + c)} recyclables.`], value: a * (b + c) }),
  },
  {
    topic: 'birdwatching',
    template: 'A birdwatcher named {name} hides in the wetland reeds with binoculars and spots {a} sparrows, {b} herons and {c} robins. How many birds does the birdwatcher spot?',
    solve: (a, b, c) => ({ lines: [`${add(a, b)} birds, then ${add(a + b, c)} birds.`], value: a + b + c }),
  },
]);

/** Names the templates use; shared by every family, so they carry no family signal. */
const NUM_LO = Number(process.env.NUM_LO ?? 2); const NUM_N = Number(process.env.NUM_N ?? 24);
const NAMES = ['Ava', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kim', 'Liam', 'Mia', 'Noor', 'Omar', 'Pia'];

/** Options of {@link clusteredQuestions}. */
export interface ClusteredQuestionsOptions {
  /** Train questions; default 7473 (GSM8K's train split). */
  readonly train?: number;
  /** Test questions; default 1319 (GSM8K's test split). */
  readonly test?: number;
  /** How many of {@link CLUSTERED_FAMILIES} to use (the first ones); default all 24. */
  readonly families?: number;
  /** The generator's seed (seedrandom); default {@link CLUSTERED_QUESTIONS_SEED}. */
  readonly seed?: string;
}

/** The seed of the built-in set: `rl-adv study --sim-questions clustered` always uses this one. */
export const CLUSTERED_QUESTIONS_SEED = 'rl-adv/clustered-questions/v1';

/**
 * A GSM8K-shaped question set of templated families: every question picks a family uniformly, a name and three
 * numbers in 2..25 (uniform), and is unique across both splits. Answers are the templates' arithmetic, written
 * as GSM8K's worked solutions (`<<expr=value>>` notes, last line `#### <value>`).
 *
 * The default set (7473 train and 1319 test questions, GSM8K's sizes, 24 families, seed
 * {@link CLUSTERED_QUESTIONS_SEED}) is what `rl-adv study --sim-questions clustered` uses; the same options give
 * the same rows on every machine.
 *
 * @throws {RlAdvantagesError} `bad_integer` when a size or `families` is not a positive integer; `bad_option`
 *   when `families` exceeds {@link CLUSTERED_FAMILIES}.length.
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
  const familyCount = checkPositiveInteger('families', options.families ?? CLUSTERED_FAMILIES.length);
  if (familyCount > CLUSTERED_FAMILIES.length) {
    throw new RlAdvantagesError(`families must be at most ${CLUSTERED_FAMILIES.length}, got ${familyCount}`, {
      code: 'bad_option',
      field: 'families',
    });
  }
  const rng = seedrandom(options.seed ?? CLUSTERED_QUESTIONS_SEED);
  const pick = (n: number): number => Math.floor(rng() * n);
  const seen = new Set<string>();
  const make = (count: number): ClusteredQuestion[] => {
    const rows: ClusteredQuestion[] = [];
    while (rows.length < count) {
      const index = pick(familyCount);
      const family = CLUSTERED_FAMILIES[index] as QuestionFamily;
      const name = NAMES[pick(Number(process.env.NAMES_N ?? NAMES.length))] as string;
      const a = NUM_LO + pick(NUM_N);
      const b = NUM_LO + pick(NUM_N);
      const c = NUM_LO + pick(NUM_N);
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
