/**
 * Faults the KurrentDB double injects on request, answered the way a KurrentDB node answers them over
 * gRPC: what a client sees during a leader election, a node restart or a slow disk. The double has no
 * cluster; these only reproduce the answers, not the conditions that cause them.
 */
import { Metadata, status, type StatusObject } from '@grpc/grpc-js';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
}

/** What the tests drive; every method takes effect on the next calls and returns at once. */
export interface KurrentDbFaults {
  /** The next `count` appends are refused as by a follower, naming `leader` (the double itself unless given). */
  notLeaderOnNextAppends(count: number, leader?: Endpoint): void;
  /** The next `count` appends are refused as by a node that is not ready (starting, or between leaders). */
  unavailableOnNextAppends(count: number): void;
  /**
   * The next `count` appends are written, then answered UNAVAILABLE: the connection lost between the
   * commit and the answer, which leaves the client unsure whether its append happened.
   */
  loseAnswerOfNextAppends(count: number): void;
  /**
   * Drops the open subscriptions, each after delivering `afterEvents` more events, as a node that goes
   * away does; with none open, the next subscription to open.
   */
  dropSubscriptions(afterEvents?: number): void;
  /** Delays every answer by `ms` (0: none). */
  setLatency(ms: number): void;
  /** Disarms every fault not yet met (the counts stay). */
  clear(): void;
  /** Appends refused, or answered with a lost answer, by an injected fault so far. */
  readonly refusedAppends: number;
  /** Subscriptions dropped by an injected fault so far. */
  readonly droppedSubscriptions: number;
}

/** A gRPC status to end a call with. */
export type CallError = Partial<StatusObject> & { code: status };

/** KurrentDB's answer to a write on a follower: NotFound, "Leader info available", and the leader. */
export function notLeader(leader: Endpoint): CallError {
  const metadata = new Metadata();
  metadata.set('exception', 'not-leader');
  metadata.set('leader-endpoint-host', leader.host);
  metadata.set('leader-endpoint-port', String(leader.port));
  return { code: status.NOT_FOUND, details: 'Leader info available', metadata };
}

/** KurrentDB's answer while it cannot serve (starting, electing, shutting down). */
export const notReady = (): CallError => ({ code: status.UNAVAILABLE, details: 'Server Is Not Ready' });

/** What a client sees of a connection that went away under a running call. */
export const connectionLost = (): CallError => ({
  code: status.UNAVAILABLE,
  details: 'Connection dropped (injected by the KurrentDB double)',
});

export interface DroppableSubscription {
  dropAfter(events: number): void;
}

export function createFaults(self: () => Endpoint) {
  let notLeaderLeft = 0;
  let leader: Endpoint | undefined;
  let unavailableLeft = 0;
  let lostAnswersLeft = 0;
  let latencyMs = 0;
  let refused = 0;
  let dropped = 0;
  let armedDrop: number | null = null;
  const subscriptions = new Set<DroppableSubscription>();

  const api: KurrentDbFaults = {
    notLeaderOnNextAppends(count, to) {
      notLeaderLeft = count;
      leader = to;
    },
    unavailableOnNextAppends(count) {
      unavailableLeft = count;
    },
    loseAnswerOfNextAppends(count) {
      lostAnswersLeft = count;
    },
    dropSubscriptions(afterEvents = 0) {
      if (subscriptions.size === 0) armedDrop = afterEvents;
      for (const subscription of subscriptions) subscription.dropAfter(afterEvents);
    },
    setLatency(ms) {
      latencyMs = ms;
    },
    clear() {
      notLeaderLeft = 0;
      unavailableLeft = 0;
      lostAnswersLeft = 0;
      latencyMs = 0;
      armedDrop = null;
    },
    get refusedAppends() {
      return refused;
    },
    get droppedSubscriptions() {
      return dropped;
    },
  };

  return {
    api,
    /** The fault the next append meets, if any; counts it down. */
    takeAppendFault(): CallError | null {
      if (notLeaderLeft > 0) {
        notLeaderLeft--;
        refused++;
        return notLeader(leader ?? self());
      }
      if (unavailableLeft > 0) {
        unavailableLeft--;
        refused++;
        return notReady();
      }
      return null;
    },
    /** The error that replaces the answer of an append already written, if any; counts it down. */
    takeLostAnswer(): CallError | null {
      if (lostAnswersLeft === 0) return null;
      lostAnswersLeft--;
      refused++;
      return connectionLost();
    },
    async delay(): Promise<void> {
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    },
    /** Counts a subscription that a drop ended, and gives the error to end it with. */
    dropped(): CallError {
      dropped++;
      return connectionLost();
    },
    /** Registers an open subscription; returns how to forget it. */
    watch(subscription: DroppableSubscription): () => void {
      subscriptions.add(subscription);
      if (armedDrop !== null) {
        subscription.dropAfter(armedDrop);
        armedDrop = null;
      }
      return () => subscriptions.delete(subscription);
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
