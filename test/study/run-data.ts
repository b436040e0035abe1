// Test data for study runs: a templated question set whose prompts come in families (as AutomationBench's do and
// GSM8K's do not), so the sim at a high coupling shows the regime where the TF-IDF kernel predicts difficulty.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import seedrandom from 'seedrandom';

const NAMES = ['Ava', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kim', 'Liam'];

/** Ten question families with disjoint topic words; numbers and names vary within a family. */
const FAMILIES: ((n: () => number, who: string) => string)[] = [
  (n, w) => `${w} bakes ${n()} loaves of sourdough bread each morning and sells them at the bakery stall for ${n()} dollars per loaf. How much bread money does the bakery stall collect?`,
  (n, w) => `A freight train carries ${n()} wagons of coal through the mountain tunnel, and each wagon holds ${n()} tons. ${w} counts the tonnage hauled through the tunnel. How many tons?`,
  (n, w) => `${w} plants ${n()} rows of tomato seedlings in the greenhouse garden with ${n()} seedlings per row. How many tomato seedlings grow in the greenhouse?`,
  (n, w) => `The aquarium has ${n()} tanks of tropical fish, and every tank holds ${n()} goldfish and guppies. ${w} feeds them all. How many fish does the aquarium keeper feed?`,
  (n, w) => `${w} knits ${n()} woolen scarves per week for the winter market and uses ${n()} skeins of yarn per scarf. How many skeins of yarn are knitted?`,
  (n, w) => `A library shelf holds ${n()} encyclopedias, and ${w} catalogs ${n()} volumes of poetry beside them. How many books are on the library shelf?`,
  (n, w) => `${w} cycles ${n()} kilometers along the river trail on Saturday and ${n()} kilometers on Sunday. How many kilometers does the cyclist ride on the trail?`,
  (n, w) => `The orchestra rehearses ${n()} symphonies, each with ${n()} movements for violins and cellos. ${w} conducts every movement. How many movements are conducted?`,
  (n, w) => `${w} paints ${n()} ceramic vases in the pottery studio and glazes ${n()} mugs in the kiln. How many pottery pieces leave the studio?`,
  (n, w) => `A beekeeper named ${w} tends ${n()} hives, and each hive produces ${n()} jars of honey in summer. How many jars of honey does the apiary fill?`,
];

/**
 * Writes train.jsonl (`train` rows) and test.jsonl (`test` rows) of questions from the first `families` templates
 * into `dir`.
 */
export function writeClusteredData(dir: string, { train = 2400, test = 400, families = FAMILIES.length, seed = 'clustered' } = {}): string {
  const rng = seedrandom(seed);
  const used = FAMILIES.slice(0, families);
  const n = (): number => 2 + Math.floor(rng() * 40);
  const rows = (count: number): string =>
    Array.from({ length: count }, () => {
      const family = used[Math.floor(rng() * used.length)] as (typeof FAMILIES)[number];
      const question = family(n, NAMES[Math.floor(rng() * NAMES.length)] as string);
      return JSON.stringify({ question, answer: `Worked solution.\n#### ${n()}` }) + '\n';
    }).join('');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'train.jsonl'), rows(train));
  writeFileSync(path.join(dir, 'test.jsonl'), rows(test));
  return dir;
}
