// Every rl-adv command, in the order `rl-adv --help` lists them.
import type { Command } from 'commander';
import type { CliIo } from '../core.js';
import { register as advantages } from './advantages.js';
import { register as calibrate } from './calibrate.js';
import { register as data } from './data.js';
import { register as decide } from './decide.js';
import { register as estimators } from './estimators.js';
import { register as gateMetrics } from './gate-metrics.js';
import { register as gate } from './gate.js';
import { register as plan } from './plan.js';
import { register as report } from './report.js';
import { register as serve } from './serve.js';
import { register as spec } from './spec.js';
import { register as study } from './study.js';
import { register as tfidf } from './tfidf.js';
import { register as tuneKernel } from './tune-kernel.js';

/** A command module's registration function. */
export type RegisterCommand = (program: Command, io: CliIo) => void;

/** The commands, in help order. */
export const COMMANDS: readonly RegisterCommand[] = [study, report, advantages, estimators, tfidf, serve, calibrate, tuneKernel, gateMetrics, gate, decide, plan, data, spec];

/** Adds every command to `program`. */
export function registerCommands(program: Command, io: CliIo): void {
  for (const register of COMMANDS) register(program, io);
}
