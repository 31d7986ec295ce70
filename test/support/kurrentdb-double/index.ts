/**
 * A KurrentDB protocol double: a gRPC server built with @grpc/grpc-js on the service definitions that
 * @kurrent/kurrentdb-client itself ships, for the tests of the KurrentDB adapter on machines that cannot
 * run KurrentDB (no container runtime, no network). It is NOT KurrentDB. It answers what the client asks
 * (appends with expected revisions and event-id idempotency, reads of a stream and of `$all` with
 * filters, catch-up subscriptions, server features, gossip) the way the protocol says a node answers, and
 * injects the faults a cluster shows (not leader, unavailable, dropped subscription, slow node). It proves
 * that the adapter and the client speak the protocol; it proves nothing of a server's own behaviour:
 * durability, clustering, elections, scavenging, performance. See README.md in this folder.
 */
import { Server, ServerCredentials, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { appendHandler } from './append.ts';
import { featuresHandler, gossipHandler } from './cluster.ts';
import { createFaults, type Endpoint, type KurrentDbFaults } from './faults.ts';
import { createEventLog, type EventLog } from './log.ts';
import { featuresGrpc, gossipGrpc, streamsGrpc } from './protocol.ts';
import { readHandler } from './read.ts';

export type { Endpoint, KurrentDbFaults } from './faults.ts';

export interface KurrentDbDouble {
  /** For KurrentDBClient.connectionString and EVENTSTORE_URL alike. */
  readonly connectionString: string;
  readonly endpoint: Endpoint;
  readonly faults: KurrentDbFaults;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';

/** A real node's log starts with its own records; these let filters that leave them out be tested. */
function seedSystemEvents(log: EventLog): void {
  const data = Buffer.from('{}', 'utf8');
  log.append('$epochs', { kind: 'any' }, [
    {
      id: '00000000-0000-4000-8000-000000000001',
      type: '$epoch-information',
      contentType: 'application/json',
      data,
      customMetadata: new Uint8Array(),
    },
  ]);
}

export async function startKurrentDbDouble(): Promise<KurrentDbDouble> {
  let endpoint: Endpoint = { host: HOST, port: 0 };
  const self = () => endpoint;
  const log = createEventLog();
  seedSystemEvents(log);
  const faults = createFaults(self);
  const server = new Server();
  // The methods left out answer UNIMPLEMENTED, as they would on a server that lacks them.
  const streams: UntypedServiceImplementation = {
    read: readHandler(log, faults),
    append: appendHandler(log, faults),
  };
  server.addService(streamsGrpc.StreamsService, streams);
  server.addService(featuresGrpc.ServerFeaturesService, { getSupportedMethods: featuresHandler(faults) });
  server.addService(gossipGrpc.GossipService, { read: gossipHandler(faults, self) });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${HOST}:0`, ServerCredentials.createInsecure(), (error, bound) => {
      if (error) reject(error);
      else resolve(bound);
    });
  });
  endpoint = { host: HOST, port };
  return {
    connectionString: `kurrentdb://${HOST}:${port.toString()}?tls=false`,
    endpoint,
    faults: faults.api,
    stop: () => {
      // Subscriptions never end by themselves: cut them, as a node that stops does.
      server.forceShutdown();
      return Promise.resolve();
    },
  };
}
