/**
 * What a client asks a node before its first command: `ServerFeatures.GetSupportedMethods` (both the
 * client's grpc-js side and its Rust bridge call it on connect) and, for `+discover` or several hosts in
 * the connection string, `Gossip.Read`. The double is a one-member cluster: its own leader.
 */
import { randomUUID } from 'node:crypto';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type * as FeaturesPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb.js';
import type * as GossipPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/gossip_pb.js';
import type * as SharedPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb.js';
import type { Endpoint, Faults } from './faults.ts';
import { featuresPb, gossipPb, sharedPb } from './protocol.ts';

/** The server version the double claims: the one test/support/kurrentdb.ts runs for real. */
export const DOUBLE_SERVER_VERSION = '26.1.1';

/**
 * Only what the double implements. Leaving out `BatchAppend` makes the client use `Append`; leaving out
 * the v2 `AppendSession` makes its `multiStreamAppend` refuse, as against a server older than 25.1.
 */
const METHODS: readonly (readonly [service: string, method: string])[] = [
  ['event_store.client.streams.streams', 'read'],
  ['event_store.client.streams.streams', 'append'],
  ['event_store.client.server_features.serverfeatures', 'getsupportedmethods'],
  ['event_store.client.gossip.gossip', 'read'],
];

export function featuresHandler(faults: Faults) {
  return (
    _call: ServerUnaryCall<SharedPb.Empty, FeaturesPb.SupportedMethods>,
    answer: sendUnaryData<FeaturesPb.SupportedMethods>,
  ): void => {
    void faults.delay().then(() => {
      const supported = new featuresPb.SupportedMethods();
      supported.setEventStoreServerVersion(DOUBLE_SERVER_VERSION);
      supported.setMethodsList(
        METHODS.map(([service, method]) => {
          const entry = new featuresPb.SupportedMethod();
          entry.setServiceName(service);
          entry.setMethodName(method);
          return entry;
        }),
      );
      answer(null, supported);
    });
  };
}

const TICKS_PER_MS = 10_000n;

export function gossipHandler(faults: Faults, self: () => Endpoint) {
  const instance = randomUUID();
  return (
    _call: ServerUnaryCall<SharedPb.Empty, GossipPb.ClusterInfo>,
    answer: sendUnaryData<GossipPb.ClusterInfo>,
  ): void => {
    void faults.delay().then(() => {
      const id = new sharedPb.UUID();
      id.setString(instance);
      const endpoint = new gossipPb.EndPoint();
      endpoint.setAddress(self().host);
      endpoint.setPort(self().port);
      const member = new gossipPb.MemberInfo();
      member.setInstanceId(id);
      member.setTimeStamp((BigInt(Date.now()) * TICKS_PER_MS).toString());
      member.setState(gossipPb.MemberInfo.VNodeState.LEADER);
      member.setIsAlive(true);
      member.setHttpEndPoint(endpoint);
      const cluster = new gossipPb.ClusterInfo();
      cluster.setMembersList([member]);
      answer(null, cluster);
    });
  };
}
