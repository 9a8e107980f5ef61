// The PaymentIntent lifecycle as a pure XState v5 machine (contract section 4).
// Side effects are named: `emit` (record a webhook event) and the `watchChain` actor; their
// defaults throw, and the actor runtime injects real ones with .provide(). Imports only xstate
// and src/domain. Deadlines are NOT `after` timers: they live in the database (expires_at).

import { assign, fromCallback, setup } from 'xstate';
import type { EventType, FailureReason, IntentState } from '../src/domain/intent';

/** Bump when a change makes old persisted snapshots unreadable; the runtime stores it per row. */
export const MACHINE_VERSION = 1;

export interface IntentContext {
  intentId: string;
  family: 'solana' | 'evm';
  txSignature: string | null;
  retryRequired: boolean;
  pendingAtExpiry: boolean;
  failureReason: FailureReason | null;
  detectedAt: number | null;
  confirmedAt: number | null;
  finalizedAt: number | null;
}

export interface IntentInput {
  intentId: string;
  family: 'solana' | 'evm';
}

/** Every event carries `at` (epoch ms) so the machine never reads the clock itself. */
export type IntentEvent =
  | { type: 'SUBMIT'; at: number; txSignature: string }
  | { type: 'CANCEL'; at: number }
  | { type: 'EXPIRE'; at: number }
  | { type: 'DETECTED'; at: number }
  | { type: 'CHAIN_CONFIRMED'; at: number; txSignature: string }
  | { type: 'CHAIN_FINALIZED'; at: number; txSignature: string }
  | { type: 'CHAIN_FAILED'; at: number; reason: FailureReason }
  | { type: 'CHAIN_DROPPED'; at: number }
  | { type: 'CHAIN_REORGED'; at: number }
  | { type: 'SIMULATE_CONFIRMED'; at: number }
  | { type: 'SIMULATE_FINALIZED'; at: number }
  | { type: 'SIMULATE_FAILED'; at: number; reason: FailureReason }
  | { type: 'SIMULATE_EXPIRED'; at: number }
  | { type: 'SIMULATE_DROPPED'; at: number };

export type IntentEventType = IntentEvent['type'];

/** The sets of states that code outside machines/ asks about (see the tags on each state). */
export const INTENT_TAGS = ['live', 'deadline', 'payable', 'watching', 'paid', 'refundable', 'closed', 'terminal'] as const;
export type IntentTag = (typeof INTENT_TAGS)[number];

/**
 * Record webhook event `type`. `reports`: the state the event reports when its move goes past
 * that state in one step; the runtime then shows the intent as the machine had it at this emit.
 */
const emit = (type: EventType, reports?: IntentState) => ({ type: 'emit' as const, params: { type, reports } });

// Shared transitions reference named actions only, so they stay plain JSON-like objects.
const toConfirmed = { target: 'confirmed', actions: ['markConfirmed', emit('intent.confirmed')] } as const;
const toFailed = { target: 'failed', actions: ['markFailed', emit('intent.failed')] } as const;
const toExpired = { target: 'expired', actions: ['clearRetry', emit('intent.expired')] } as const;
const toDropped = { target: 'dropped', actions: ['markRetryRequired', emit('intent.retry_required')] } as const;
const submit = { target: 'pending', actions: ['markSubmitted', emit('intent.pending')] } as const;
const detected = { guard: 'notYetDetected', actions: ['markDetected', emit('intent.detected')] } as const;
const finalize = { target: 'finalized', actions: ['markFinalized', emit('intent.finalized')] } as const;

const txOf = (context: IntentContext, event: IntentEvent): string | null =>
  'txSignature' in event ? event.txSignature : context.txSignature;

export const intentMachine = setup({
  types: {
    context: {} as IntentContext,
    events: {} as IntentEvent,
    input: {} as IntentInput,
    tags: {} as IntentTag,
  },
  actions: {
    /** Record a webhook event; the runtime writes it in the transition's transaction. */
    emit: (_args, _params: { type: EventType; reports?: IntentState }) => {
      throw new Error('intent machine: action "emit" must be provided by the runtime');
    },
    markSubmitted: assign({ txSignature: ({ context, event }) => txOf(context, event), retryRequired: false }),
    markConfirmed: assign({
      confirmedAt: ({ event }) => event.at,
      txSignature: ({ context, event }) => txOf(context, event),
      retryRequired: false,
    }),
    markFinalized: assign({ finalizedAt: ({ event }) => event.at, txSignature: ({ context, event }) => txOf(context, event) }),
    markFailed: assign({
      failureReason: ({ event }) => ('reason' in event ? event.reason : 'revert'),
      retryRequired: false,
    }),
    markRetryRequired: assign({ retryRequired: true }),
    clearRetry: assign({ retryRequired: false }),
    markPendingAtExpiry: assign({ pendingAtExpiry: true }),
    markDetected: assign({ detectedAt: ({ event }) => event.at }),
    clearConfirmed: assign({ confirmedAt: null }),
  },
  actors: {
    /** Follow the submitted transaction on chain; must be idempotent (it restarts on rehydrate). */
    watchChain: fromCallback<IntentEvent, { intentId: string; stage: 'pending' | 'confirmed' }>(() => {
      throw new Error('intent machine: actor "watchChain" must be provided by the runtime');
    }),
  },
  guards: {
    notYetDetected: ({ context }) => context.detectedAt === null,
    pendingAtExpiry: ({ context }) => context.pendingAtExpiry,
    solanaFamily: ({ context }) => context.family === 'solana',
  },
}).createMachine({
  id: 'intent',
  initial: 'created',
  context: ({ input }) => ({
    intentId: input.intentId,
    family: input.family,
    txSignature: null,
    retryRequired: false,
    pendingAtExpiry: false,
    failureReason: null,
    detectedAt: null,
    confirmedAt: null,
    finalizedAt: null,
  }),
  // Tags name the sets that verbs, the store and the runtime ask about (machines/judge.ts):
  // live (not terminal: boot rehydrates it, detection watches its receiver), deadline (the TTL
  // applies), payable (build and submit), watching (the chain reports on its transaction), paid
  // (money arrived), refundable, closed (ended unpaid), terminal (no lifecycle move left but
  // DETECTED). README "State tags".
  states: {
    created: {
      tags: ['live', 'deadline', 'payable'],
      on: {
        SUBMIT: submit,
        CANCEL: { target: 'cancelled', actions: emit('intent.cancelled') },
        EXPIRE: toExpired,
        DETECTED: detected,
        SIMULATE_CONFIRMED: toConfirmed,
        SIMULATE_FAILED: toFailed,
        SIMULATE_EXPIRED: toExpired,
      },
    },
    pending: {
      tags: ['live', 'deadline', 'watching'],
      invoke: { src: 'watchChain', input: ({ context }) => ({ intentId: context.intentId, stage: 'pending' as const }) },
      on: {
        // A broadcast transaction can still land after the TTL: flag it, keep watching, no event.
        EXPIRE: { actions: 'markPendingAtExpiry' },
        DETECTED: detected,
        CHAIN_CONFIRMED: toConfirmed,
        // The poller can first see a transaction already finalized: report both steps, in order,
        // intent.confirmed as the intent stood once confirmed (assigns run in order: not yet
        // finalized at that emit).
        CHAIN_FINALIZED: {
          target: 'finalized',
          actions: ['markConfirmed', emit('intent.confirmed', 'confirmed'), 'markFinalized', emit('intent.finalized')],
        },
        CHAIN_FAILED: toFailed,
        CHAIN_DROPPED: [{ guard: 'pendingAtExpiry', ...toExpired }, toDropped],
        CHAIN_REORGED: { target: 'pending', reenter: true, actions: emit('intent.pending') },
        SIMULATE_CONFIRMED: toConfirmed,
        SIMULATE_FAILED: toFailed,
        SIMULATE_EXPIRED: toExpired,
        SIMULATE_DROPPED: { guard: 'solanaFamily', ...toDropped },
      },
    },
    dropped: {
      tags: ['live', 'deadline', 'payable'],
      on: {
        SUBMIT: submit,
        EXPIRE: toExpired,
        DETECTED: detected,
        SIMULATE_CONFIRMED: toConfirmed,
        SIMULATE_FAILED: toFailed,
        SIMULATE_EXPIRED: toExpired,
      },
    },
    confirmed: {
      tags: ['live', 'watching', 'paid', 'refundable'],
      invoke: { src: 'watchChain', input: ({ context }) => ({ intentId: context.intentId, stage: 'confirmed' as const }) },
      on: {
        DETECTED: detected,
        CHAIN_FINALIZED: finalize,
        SIMULATE_FINALIZED: finalize,
        CHAIN_REORGED: {
          target: 'pending',
          actions: ['clearConfirmed', emit('intent.pending')],
        },
      },
    },
    // Not an XState final state: a finalized intent still accepts DETECTED (contract section 4).
    finalized: { tags: ['terminal', 'paid', 'refundable'], on: { DETECTED: detected } },
    failed: { type: 'final', tags: ['terminal', 'closed'] },
    expired: { type: 'final', tags: ['terminal', 'closed'] },
    cancelled: { type: 'final', tags: ['terminal', 'closed'] },
  },
});
