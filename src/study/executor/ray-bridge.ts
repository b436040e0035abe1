// The orchestrator's end of the Ray bridge (`python -m rl_advantages.cluster`, python/rl_advantages/cluster/): the
// bridge is a Ray driver connected to the cluster; this side starts it, sends requests as JSON lines on its stdin and
// routes the answers (`{id, event, ...}`) on its stdout to the request that asked. When the bridge exits (the cluster
// lost, a crash) every open request gets the exit's message.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { RlAdvantagesError } from '../../errors.js';

/** One answer of the bridge. */
export interface BridgeMessage {
  readonly id?: number | null;
  readonly event: string;
  readonly [key: string]: unknown;
}

/** The bridge's first line. */
export interface BridgeReady extends BridgeMessage {
  readonly event: 'ready';
  readonly job_id: string;
  readonly ray: string;
}

/** Characters of the bridge's stderr kept for messages. */
const STDERR_KEPT = 16_384;

/**
 * The error of a Ray executor that cannot start or lost its bridge.
 *
 * @example
 * ```ts
 * throw rayUnavailable('cannot reach the Ray cluster at 10.0.0.1:6379');
 * ```
 */
export function rayUnavailable(message: string, field = 'ray-address'): RlAdvantagesError {
  return new RlAdvantagesError(`--executor ray: ${message}`, { code: 'ray_unavailable', field });
}

/** A running bridge process. */
export class RayBridge {
  private next = 1;
  private readonly listeners = new Map<number, (message: BridgeMessage) => void>();
  private stderr = '';
  private exited: RlAdvantagesError | undefined;

  private constructor(
    private readonly child: ChildProcess,
    readonly ready: BridgeReady,
  ) {}

  /**
   * Starts `python -m rl_advantages.cluster --address ADDRESS` and waits for its ready line.
   *
   * @throws {RlAdvantagesError} `ray_unavailable` with the bridge's own line (an unreachable cluster, no ray package).
   * @example
   * ```ts
   * const bridge = await RayBridge.start('python3', '127.0.0.1:6379', process.env);
   * ```
   */
  static start(python: string, address: string, env: Readonly<Record<string, string | undefined>>): Promise<RayBridge> {
    const child = spawn(python, ['-m', 'rl_advantages.cluster', '--address', address], { env: { ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin?.on('error', () => undefined); // a bridge that died: its close event tells
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    return new Promise((resolve, reject) => {
      let bridge: RayBridge | undefined;
      child.on('error', (error) => {
        reject(rayUnavailable(`cannot run Python (${JSON.stringify(python)}) for the Ray bridge: ${error.message}; pass --python or set RL_ADV_PYTHON`, 'python'));
      });
      lines.on('line', (line) => {
        let message: BridgeMessage;
        try {
          message = JSON.parse(line) as BridgeMessage;
        } catch {
          return;
        }
        if (bridge === undefined) {
          if (message.event !== 'ready') return;
          bridge = new RayBridge(child, message as BridgeReady);
          bridge.stderr = stderr;
          child.stderr?.removeAllListeners('data');
          child.stderr?.on('data', (chunk: Buffer) => bridge?.keep(chunk));
          resolve(bridge);
          return;
        }
        bridge.route(message);
      });
      child.on('close', (code, signal) => {
        const tail = (bridge?.stderr ?? stderr).trim().split('\n').at(-1) ?? '';
        if (bridge === undefined) {
          const why = tail.replace(/^python -m rl_advantages\.cluster: /, '');
          if (/No module named/.test(tail)) {
            reject(rayUnavailable(`${python} cannot run the Ray bridge (${why}): install the package (pip install ./python) and ray`, 'python'));
          } else {
            reject(rayUnavailable(why || `the Ray bridge exited (${code === null ? String(signal) : `exit ${String(code)}`}) before connecting`));
          }
          return;
        }
        bridge.gone(rayUnavailable(`the Ray bridge exited (${code === null ? String(signal) : `exit ${String(code)}`}): ${tail}`));
      });
    });
  }

  private keep(chunk: Buffer): void {
    this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  }

  private route(message: BridgeMessage): void {
    if (typeof message.id !== 'number') return;
    this.listeners.get(message.id)?.(message);
  }

  private gone(error: RlAdvantagesError): void {
    this.exited = error;
    const gone: BridgeMessage = { event: 'bridge_exited', message: error.message };
    for (const listener of [...this.listeners.values()]) listener(gone);
    this.listeners.clear();
  }

  /**
   * Sends a request; `onMessage` receives each answer to it until it returns true (done).
   *
   * @returns the request's id.
   * @throws {RlAdvantagesError} `ray_unavailable` when the bridge has exited.
   */
  send(request: Record<string, unknown>, onMessage?: (message: BridgeMessage) => boolean): number {
    if (this.exited !== undefined) throw this.exited;
    const id = this.next++;
    if (onMessage !== undefined) {
      this.listeners.set(id, (message) => {
        if (onMessage(message) || message.event === 'bridge_exited') this.listeners.delete(id);
      });
    }
    this.child.stdin?.write(`${JSON.stringify({ ...request, id })}\n`);
    return id;
  }

  /**
   * One request, one answer.
   *
   * @throws {RlAdvantagesError} `ray_unavailable` when the bridge exits first, or answers `error`.
   */
  ask(request: Record<string, unknown>): Promise<BridgeMessage> {
    return new Promise((resolve, reject) => {
      try {
        this.send(request, (message) => {
          if (message.event === 'bridge_exited' || message.event === 'error') reject(rayUnavailable(String(message.message)));
          else resolve(message);
          return true;
        });
      } catch (error) {
        reject(error as Error);
      }
    });
  }

  /** Asks the bridge to cancel what runs and leave the cluster; resolves when it has exited. */
  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.stdin?.end(`${JSON.stringify({ op: 'shutdown', id: 0 })}\n`);
    });
  }
}
