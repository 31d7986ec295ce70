/**
 * The gRPC service definitions and messages that `@kurrent/kurrentdb-client` itself ships, loaded for the
 * KurrentDB double. They are generated CommonJS whose exports Node cannot name statically, hence require().
 */
import { createRequire } from 'node:module';
import type * as GossipGrpc from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/gossip_grpc_pb.js';
import type * as GossipPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/gossip_pb.js';
import type * as FeaturesGrpc from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_grpc_pb.js';
import type * as FeaturesPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/serverfeatures_pb.js';
import type * as SharedPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/shared_pb.js';
import type * as StreamsGrpc from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_grpc_pb.js';
import type * as StreamsPb from '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1/streams_pb.js';
import type * as TimestampPb from 'google-protobuf/google/protobuf/timestamp_pb.js';

const require = createRequire(import.meta.url);
const V1 = '@kurrent/kurrentdb-client/generated/kurrentdb/protocols/v1';

export const streamsGrpc = require(`${V1}/streams_grpc_pb.js`) as typeof StreamsGrpc;
export const streamsPb = require(`${V1}/streams_pb.js`) as typeof StreamsPb;
export const sharedPb = require(`${V1}/shared_pb.js`) as typeof SharedPb;
export const featuresGrpc = require(`${V1}/serverfeatures_grpc_pb.js`) as typeof FeaturesGrpc;
export const featuresPb = require(`${V1}/serverfeatures_pb.js`) as typeof FeaturesPb;
export const gossipGrpc = require(`${V1}/gossip_grpc_pb.js`) as typeof GossipGrpc;
export const gossipPb = require(`${V1}/gossip_pb.js`) as typeof GossipPb;
export const timestampPb = require('google-protobuf/google/protobuf/timestamp_pb.js') as typeof TimestampPb;

export type ReadReq = StreamsPb.ReadReq;
export type ReadResp = StreamsPb.ReadResp;
export type AppendReq = StreamsPb.AppendReq;
export type AppendResp = StreamsPb.AppendResp;
export type ReadOptions = StreamsPb.ReadReq.Options;
export type StreamOptions = StreamsPb.ReadReq.Options.StreamOptions;
export type AllOptions = StreamsPb.ReadReq.Options.AllOptions;
export type FilterExpression = StreamsPb.ReadReq.Options.FilterOptions.Expression;
export type AppendOptions = StreamsPb.AppendReq.Options;
export type ProposedMessage = StreamsPb.AppendReq.ProposedMessage;
