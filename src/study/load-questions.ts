// The study's questions: GSM8K from its folder, the built-in clustered set (sim backend only, no folder), or the
// arith world a spec generates in code (its `dataset` section, name "arith"), with the sha256 that identifies them in run.json.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { gsm8kReferenceAnswer } from '../grading/gsm8k.js';
import { arithItems, parseArithWorld } from '../data/arith.js';
import { loadGsm8k, readGsm8kFile, resolveGsm8kDir, type Gsm8kItem } from '../data/gsm8k.js';
import type { StudyOptions } from './options.js';
import type { StudySpec } from './spec.js';
import { clusteredQuestions, questionsJsonl, SIM_QUESTION_SETS, type QuestionRow, type SimQuestionSet } from './sim/questions.js';
import { usage } from './usage.js';

/** Where a study's questions come from. */
export type { StudyQuestionSet } from './sim/questions.js';
import type { StudyQuestionSet } from './sim/questions.js';

/** The arith world of a spec (`dataset.name` "arith"), or undefined for every other spec. */
export function specArithSection(spec: StudySpec): Readonly<Record<string, unknown>> | undefined {
  const dataset = spec.raw.dataset;
  return typeof dataset === 'object' && dataset !== null && (dataset as { name?: unknown }).name === 'arith'
    ? (dataset as Record<string, unknown>)
    : undefined;
}

/** The loaded questions of a study. */
export interface StudyQuestions {
  /** `arith` for a spec whose world is generated in code; otherwise the question set of the options. */
  questions: StudyQuestionSet;
  dataDir: string | null;
  train: Gsm8kItem[];
  test: Gsm8kItem[];
  dataSha256: string;
}

/** Rows of the built-in set as the study's items (`clustered_<split>_<index>` ids; reference answers parsed as GSM8K's). */
function builtInItems(rows: readonly QuestionRow[], split: 'train' | 'test'): Gsm8kItem[] {
  return rows.map((row, index) => ({
    index,
    id: `clustered_${split}_${index}`,
    question: row.question,
    answer: row.answer,
    referenceAnswer: gsm8kReferenceAnswer(row.answer),
  }));
}

/**
 * The study's questions: the spec's arith world when its `dataset` says so (no folder), else GSM8K from its folder,
 * or the built-in clustered set (sim backend only, no folder).
 *
 * @throws {RlAdvantagesError} `bad_option` for --sim-questions or --data-dir with an arith spec, or a bad question set;
 *   `invalid_spec` for a bad arith section; GSM8K's errors when its folder is missing.
 */
export function loadStudyQuestions(options: StudyOptions, spec?: StudySpec): StudyQuestions {
  const arith = spec === undefined ? undefined : specArithSection(spec);
  if (arith !== undefined) return arithQuestions(options, arith);
  const questions = options.questions ?? 'gsm8k';
  if (!(SIM_QUESTION_SETS as readonly string[]).includes(questions)) {
    throw usage(`--sim-questions must be ${SIM_QUESTION_SETS.map((q) => `"${q}"`).join(' or ')}, got ${JSON.stringify(questions)}`);
  }
  const hash = createHash('sha256');
  if (questions === 'clustered') {
    if (!options.backend.simulation) {
      throw usage(`--sim-questions clustered applies to the simulated backend only, not --backend ${options.backend.name}`);
    }
    if (options.dataDir !== undefined) {
      throw usage('--data-dir does not apply to --sim-questions clustered: the clustered question set is built in; drop one of them');
    }
    const set = clusteredQuestions();
    hash.update(questionsJsonl(set.train)).update(questionsJsonl(set.test));
    return { questions, dataDir: null, train: builtInItems(set.train, 'train'), test: builtInItems(set.test, 'test'), dataSha256: hash.digest('hex') };
  }
  const dataDir = resolveGsm8kDir(options.dataDir);
  const train = loadGsm8k(dataDir, 'train');
  const test = loadGsm8k(dataDir, 'test');
  for (const split of ['train', 'test']) hash.update(readGsm8kFile(path.join(dataDir, `${split}.jsonl`)));
  return { questions, dataDir, train, test, dataSha256: hash.digest('hex') };
}

/** The arith world of a spec: generated from its seed, no folder; its sha256 covers both splits' JSON lines. */
function arithQuestions(options: StudyOptions, section: Readonly<Record<string, unknown>>): StudyQuestions {
  if (options.questions !== undefined) throw usage('--sim-questions does not apply to a spec whose dataset is the arith world (it generates its own questions)');
  if (options.dataDir !== undefined) throw usage('--data-dir does not apply to a spec whose dataset is the arith world (it generates its own questions); drop it');
  const world = parseArithWorld(section);
  const train = arithItems(world, 'train');
  const test = arithItems(world, 'test');
  const hash = createHash('sha256');
  for (const item of [...train, ...test]) hash.update(JSON.stringify({ question: item.question, answer: item.answer }) + '\n');
  return { questions: 'arith', dataDir: null, train, test, dataSha256: hash.digest('hex') };
}

/**
 * The train items of a built-in question set (`clustered`), as the study loads them; GSM8K's come from its folder
 * (`loadGsm8k(dir, 'train')`).
 *
 * @example
 * ```ts
 * studyTrainItems('clustered')[0]?.id; // "clustered_train_0"
 * ```
 */
export function studyTrainItems(questions: Exclude<SimQuestionSet, 'gsm8k'>): Gsm8kItem[] {
  if (questions !== 'clustered') throw usage(`--sim-questions must be "clustered" here, got ${JSON.stringify(questions)}`);
  return builtInItems(clusteredQuestions().train, 'train');
}
