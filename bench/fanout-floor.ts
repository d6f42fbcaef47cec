// What the fan-out costs with nothing but `ws` on the server: the live-at-scale part's subscriber
// processes (bench/live-scale-worker.ts, graphql-ws clients) against bench/fanout-floor-server.ts, at the
// live-at-scale part's rate (500 events at 100/s). The floor the real server's figures are held against.
// `npx tsx bench/fanout-floor.ts [subscribers]` (FLOOR_BURN_MS=N: the server spins N ms of every 10 ms).
import { fork } from 'node:child_process';
import path from 'node:path';
import { SubscriberGroup } from './live-scale-subscribers.js';
import { ROOT } from './server.js';

const EVENTS = 500;
const RATE = 100;
const count = Number(process.argv[2] ?? 1000);
const child = fork(path.join(ROOT, 'bench', 'fanout-floor-server.ts'), [], {
  cwd: ROOT,
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
/** Sends `message` to the server process and waits for its reply of `kind`. */
const ask = <T>(message: object, kind: string) =>
  new Promise<T>((resolve) => {
    const on = (reply: { kind: string }) => {
      if (reply.kind !== kind) return;
      child.off('message', on);
      resolve(reply as T);
    };
    child.on('message', on);
    child.send(message);
  });
const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', resolve as never));
// The floor server takes any credential: one per subscriber, as the worker expects.
const keys = Array.from({ length: count }, (_, index) => ({ name: `s${index}`, authorization: `Bearer ${index}` }));
const group = await SubscriberGroup.open(port, keys, 2, 'subscription { queueEvents { sequence occurredAt } }');
try {
  while ((await group.withEvents()) < count) await ask({ kind: 'publish' }, 'published');
  const { sequence: start } = await ask<{ sequence: number }>({ kind: 'count' }, 'count');
  await group.mark(start);
  const ran = await ask<{ sequence: number; userMs: number; systemMs: number }>({ kind: 'run', events: EVENTS, rate: RATE }, 'ran');
  const tally = await group.tally(ran.sequence - start, ran.sequence);
  const perDelivery = (ms: number) => +((ms * 1000) / Math.max(1, tally.delivered)).toFixed(2);
  console.log(
    JSON.stringify({
      subscribers: count,
      events: `${EVENTS} at ${RATE}/s`,
      delivered: tally.delivered,
      missing: tally.missing,
      duplicates: tally.duplicates,
      latencyMs: tally.latency,
      serverCpuPerDeliveryUs: { user: perDelivery(ran.userMs), system: perDelivery(ran.systemMs) },
      subscriberProcessesCpuPerDeliveryUs: perDelivery(tally.workerCpuMs),
    }),
  );
} finally {
  await group.close();
  child.kill();
}
