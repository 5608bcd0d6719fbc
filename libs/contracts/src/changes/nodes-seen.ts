/**
 * The nodes whose agents polled the exchange's change feed, published by the exchange once
 * their heartbeats are stored (one message per org per stored batch). A poll is an agent's
 * heartbeat, and it is not a change: these go out as plain NATS messages, kept by no stream.
 * One lost is made good by the node's next poll, well within any offline timeout.
 */
import { ArrayMaxSize, IsArray, IsISO8601, Matches } from 'class-validator';
import { subjectToken } from '../events/event-definition';
import { IDENTIFIER_PATTERN } from '../identifiers';

/** More nodes than this in one stored batch go out in several messages. */
export const NODES_SEEN_MAX_NODES = 5_000;

export class NodesSeenPayload {
  @Matches(IDENTIFIER_PATTERN)
  org!: string;

  /** When the exchange took the polls (the earliest of the batch), as stored in `status.lastHeartbeat`. */
  @IsISO8601()
  seenAt!: string;

  @IsArray()
  @ArrayMaxSize(NODES_SEEN_MAX_NODES)
  @Matches(IDENTIFIER_PATTERN, { each: true })
  nodes!: string[];
}

export const NodesSeen = Object.freeze({
  type: 'careen.exchange.nodes-seen',
  filter: 'careen.heartbeats.*',
  subject: (org: string) => `careen.heartbeats.${subjectToken(org)}`,
  payload: NodesSeenPayload,
});
