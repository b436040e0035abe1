// A loopback HTTP server (127.0.0.1 only) serving the GSM8K files of a folder the way GitHub's raw-file host does:
// `<base>/<file>` and `<base>/../../LICENSE`, with switches to corrupt a file, cut a connection or drop the LICENSE.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface Gsm8kServerFaults {
  /** Serve this file with its middle byte changed. */
  corrupt?: string;
  /** Announce this file's full length, send half of it, then destroy the socket. */
  drop?: string;
  /** Answer 404 for the LICENSE. */
  noLicense?: boolean;
}

export interface Gsm8kServer {
  /** `http://127.0.0.1:<port>/openai/grade-school-math/<commit>/grade_school_math/data` */
  readonly base: string;
  /** Paths requested so far. */
  readonly requests: string[];
  faults: Gsm8kServerFaults;
  close(): Promise<void>;
}

/** Starts a server for the files of `dir` (and its LICENSE). */
export async function startGsm8kServer(dir: string, faults: Gsm8kServerFaults = {}): Promise<Gsm8kServer> {
  const prefix = '/openai/grade-school-math/c0ffee/grade_school_math/data/';
  const requests: string[] = [];
  const state = { faults };
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '';
    requests.push(url);
    let name: string | undefined;
    if (url === '/openai/grade-school-math/c0ffee/LICENSE') name = state.faults.noLicense ? undefined : 'LICENSE';
    else if (url.startsWith(prefix) && !url.slice(prefix.length).includes('/')) name = url.slice(prefix.length);
    let body: Buffer;
    try {
      if (name === undefined) throw new Error('not served');
      body = readFileSync(path.join(dir, name));
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('404: Not Found');
      return;
    }
    if (state.faults.corrupt === name) {
      body = Buffer.from(body);
      const middle = Math.floor(body.length / 2);
      body[middle] = (body[middle] ?? 0) ^ 0x01;
    }
    response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'content-length': String(body.length) });
    if (state.faults.drop === name) {
      response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.destroy());
      return;
    }
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}${prefix.slice(0, -1)}`,
    requests,
    get faults() {
      return state.faults;
    },
    set faults(value) {
      state.faults = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
