// A lean keep-alive JSON-over-HTTP client for the load generator: node:http, one Agent per cell.
import http from 'node:http';

export interface HttpReply {
  status: number;
  body: string;
}

export interface GraphQLClient {
  /** POSTs a pre-serialised GraphQL request body to /graphql. */
  post(body: string, headers?: Record<string, string>): Promise<HttpReply>;
  close(): void;
}

/** A client for 127.0.0.1:port with at most `sockets` kept-alive connections. */
export function graphqlClient(port: number, sockets: number): GraphQLClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
  return {
    post(body, headers = {}) {
      return new Promise<HttpReply>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/graphql',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            response.on('error', reject);
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    },
    close() {
      agent.destroy();
    },
  };
}

/** GETs a path; used to wait for /ready. */
export function getStatus(port: number, path: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path, agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
    request.setTimeout(2_000, () => request.destroy());
  });
}

export function gqlBody(query: string, variables?: Record<string, unknown>): string {
  return JSON.stringify(variables === undefined ? { query } : { query, variables });
}
