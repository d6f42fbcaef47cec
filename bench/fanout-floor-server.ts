// The floor under the fan-out figures: a bare `ws` server speaking just enough graphql-ws (ack,
// subscribe, next) to the bench's own subscriber processes, sending each event's payload to every
// subscriber at once, one write per delivery, nothing else running. Driven over IPC by
// bench/fanout-floor.ts. FLOOR_BURN_MS=N spins N ms of every 10 ms on its event loop (other work a real
// server does: requests, the database).
import { type WebSocket, WebSocketServer } from 'ws';

interface Subscriber {
  socket: WebSocket;
  id: string;
}

const subscribers: Subscriber[] = [];
const server = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
let sequence = 0;
const burnMs = Number(process.env.FLOOR_BURN_MS ?? 0);
if (burnMs > 0) {
  setInterval(() => {
    const until = performance.now() + burnMs;
    while (performance.now() < until) {
      // spin
    }
  }, 10);
}

server.on('connection', (socket) => {
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; id?: string };
    if (message.type === 'connection_init') socket.send('{"type":"connection_ack"}');
    else if (message.type === 'subscribe' && message.id) subscribers.push({ socket, id: message.id });
    else if (message.type === 'ping') socket.send('{"type":"pong"}');
  });
});

/** One event to every subscriber, framed as the real server frames the dashboard's queueEvents document. */
function publish(): void {
  sequence++;
  const payload = JSON.stringify({
    data: {
      queueEvents: {
        __typename: 'QueueEvent',
        sequence,
        type: 'ITEM_ADDED',
        occurredAt: new Date().toISOString(),
        actor: 'bench-proposer',
        leaseExpiresAt: null,
        item: {
          __typename: 'Item',
          id: `SXRlbTo${sequence}`,
          recordId: `e${sequence}`,
          batchId: 'ls-fanout',
          status: 'PENDING',
          claimState: 'UNCLAIMED',
        },
      },
    },
  });
  for (const { socket, id } of subscribers) socket.send(`{"id":"${id}","type":"next","payload":${payload}}`);
}

process.on('message', (request: { kind: string; events?: number; rate?: number }) => {
  if (request.kind === 'count') process.send?.({ kind: 'count', subscribers: subscribers.length, sequence });
  else if (request.kind === 'publish') {
    publish();
    process.send?.({ kind: 'published', sequence });
  } else if (request.kind === 'run') {
    const cpu = process.cpuUsage();
    const started = Date.now();
    const events = request.events ?? 500;
    const rate = request.rate ?? 100;
    let sent = 0;
    const tick = () => {
      publish();
      sent++;
      if (sent === events) {
        // The last frames' writes complete within this wait; their CPU is counted.
        setTimeout(() => {
          const used = process.cpuUsage(cpu);
          process.send?.({ kind: 'ran', sequence, userMs: used.user / 1000, systemMs: used.system / 1000 });
        }, 2_000);
        return;
      }
      setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - Date.now()));
    };
    tick();
  }
});

server.on('listening', () => {
  const address = server.address();
  process.send?.({ kind: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
