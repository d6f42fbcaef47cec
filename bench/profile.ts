// CPU profile of the server process over a window, via the inspector (node --inspect=127.0.0.1:0),
// and a summary of where the samples landed: top self-time functions and self time by area.
import WebSocket from 'ws';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface Profiler {
  start(): Promise<void>;
  stop(): Promise<CpuProfile>;
  close(): void;
}

/** The inspector URL the server printed ("Debugger listening on ws://…"). */
export function inspectorUrl(logs: string[]): string | null {
  for (const line of logs) {
    const match = /Debugger listening on (ws:\/\/\S+)/.exec(line);
    if (match?.[1]) return match[1];
  }
  return null;
}

export async function connectProfiler(url: string, samplingIntervalUs = 200): Promise<Profiler> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
    if (message.id === undefined) return;
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) pending.reject(new Error(message.error.message));
    else pending.resolve(message.result);
  });
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: samplingIntervalUs });
  return {
    start: async () => {
      await call('Profiler.start');
    },
    stop: async () => ((await call('Profiler.stop')) as { profile: CpuProfile }).profile,
    close: () => socket.close(),
  };
}

/** Where a frame lives: a package, Node's internals, the app, or a V8 pseudo-frame. */
export function area(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName.startsWith('(')) return functionName; // (garbage collector), (program), (idle)
    return '(native / V8 builtins)';
  }
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    const name = rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    if (url.includes('/src/generated/') || name === '.prisma') return 'prisma generated client';
    return name ?? url;
  }
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? 'internal' : url.slice(5)}`;
  if (url.includes('/dist/generated/')) return 'prisma generated client (dist/generated)';
  if (url.includes('/dist/')) return 'leasehold app (dist/)';
  return url;
}

export interface ProfileSummary {
  totalMs: number;
  functions: { name: string; where: string; selfMs: number; share: number }[];
  areas: { area: string; selfMs: number; share: number }[];
  /** Share of samples whose (synchronous) stack passes through the area at all. */
  inclusive: { area: string; ms: number; share: number }[];
}

/** Pseudo-frames and Node's own plumbing are on nearly every stack: left out of the inclusive view. */
const NOT_INCLUSIVE = new Set(['(root)', '(native / V8 builtins)', 'node:internal', '(program)', '(idle)', '(garbage collector)']);

export function summariseProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; attribute the gap after a sample to it.
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index] as number;
    const delta = profile.timeDeltas[index + 1] ?? 0;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta);
  }
  const byFunction = new Map<string, { name: string; where: string; selfUs: number }>();
  const byArea = new Map<string, number>();
  let totalUs = 0;
  for (const [id, selfUs] of selfByNode) {
    const node = nodes.get(id);
    if (!node) continue;
    totalUs += selfUs;
    const frame = node.callFrame;
    const where = frame.url === '' ? '' : `${shortUrl(frame.url)}:${frame.lineNumber + 1}`;
    const name = frame.functionName || '(anonymous)';
    const key = `${name}@${where}`;
    const entry = byFunction.get(key) ?? { name, where, selfUs: 0 };
    entry.selfUs += selfUs;
    byFunction.set(key, entry);
    const group = area(frame);
    byArea.set(group, (byArea.get(group) ?? 0) + selfUs);
  }
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areasOnStack = new Map<number, Set<string>>();
  const stackAreas = (id: number): Set<string> => {
    const known = areasOnStack.get(id);
    if (known) return known;
    const parentId = parent.get(id);
    const result = new Set(parentId === undefined ? [] : stackAreas(parentId));
    const node = nodes.get(id);
    if (node) result.add(area(node.callFrame));
    areasOnStack.set(id, result);
    return result;
  };
  const inclusive = new Map<string, number>();
  for (const [id, selfUs] of selfByNode) {
    for (const group of stackAreas(id)) if (!NOT_INCLUSIVE.has(group)) inclusive.set(group, (inclusive.get(group) ?? 0) + selfUs);
  }
  const share = (us: number) => (totalUs === 0 ? 0 : us / totalUs);
  return {
    totalMs: totalUs / 1000,
    functions: [...byFunction.values()]
      .sort((a, b) => b.selfUs - a.selfUs)
      .slice(0, top)
      .map((entry) => ({ name: entry.name, where: entry.where, selfMs: entry.selfUs / 1000, share: share(entry.selfUs) })),
    areas: [...byArea.entries()].sort((a, b) => b[1] - a[1]).map(([group, us]) => ({ area: group, selfMs: us / 1000, share: share(us) })),
    inclusive: [...inclusive.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([group, us]) => ({ area: group, ms: us / 1000, share: share(us) })),
  };
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}
