/**
 * Fault injection for the Sheets fake: answer the next N matching requests (or
 * a seeded share of them) with 429/500/503, optionally after applying the
 * write (§1.8), and add latency. Deterministic for a given seed.
 */
import type { MethodName } from './google-errors.ts'

export type RequestClass = 'read' | 'write'

/** One fault to inject. */
export interface FaultRule {
  /** HTTP status to answer: 429 (quota body), 500, 503, or any other. */
  status: number
  /** How many matching requests get it. @default 1 (ignored when `share` is set) */
  times?: number
  /** Share 0–1 of matching requests that fail, drawn from the seeded generator; lasts until cleared. */
  share?: number
  /** Only requests of this method (`UpdateValues`, `BatchUpdateSpreadsheet`, …). */
  method?: MethodName
  /** Only reads or only writes. */
  requestClass?: RequestClass
  /** Apply the write, then answer the error (Google's "503 but the data is there"). */
  applyThenFail?: boolean
  /**
   * Apply the request, then answer it only after `stallMs` (the answer a client's limit gives up on while Google
   * still finishes) or drop the connection without an answer. `status` is not used.
   */
  thenAnswer?: { stallMs: number } | 'drop'
  /** Drop the connection without applying the request or answering. `status` is not used. */
  dropUnapplied?: boolean
}

/** What the handler must do for one request. */
export interface FaultDecision {
  status: number
  applyThenFail: boolean
  thenAnswer?: FaultRule['thenAnswer']
  dropUnapplied?: boolean
}

/** Runtime control of injected faults. */
export interface FaultController {
  /** Adds a rule; rules are tried in the order added. */
  inject(rule: FaultRule): void
  /** Removes all rules and latency. */
  clear(): void
  /** Delay every response by this many milliseconds. */
  setLatency(ms: number): void
  latency(): number
  /** Consumes a matching rule for this request, if any. */
  decide(method: MethodName, requestClass: RequestClass): FaultDecision | undefined
}

/** mulberry32: small, seedable, good enough for test dice. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

function decision(rule: FaultRule): FaultDecision {
  return {
    status: rule.status,
    applyThenFail: rule.applyThenFail ?? false,
    ...(rule.thenAnswer ? { thenAnswer: rule.thenAnswer } : {}),
    ...(rule.dropUnapplied ? { dropUnapplied: true } : {}),
  }
}

/** Creates a fault controller drawing from `random`. */
export function createFaults(random: () => number, initial: readonly FaultRule[] = []): FaultController {
  let rules: { rule: FaultRule; left: number }[] = []
  let latencyMs = 0
  const controller: FaultController = {
    inject(rule) {
      rules.push({ rule, left: rule.times ?? 1 })
    },
    clear() {
      rules = []
      latencyMs = 0
    },
    setLatency(ms) {
      latencyMs = ms
    },
    latency: () => latencyMs,
    decide(method, requestClass) {
      for (const entry of rules) {
        const { rule } = entry
        if (rule.method && rule.method !== method) continue
        if (rule.requestClass && rule.requestClass !== requestClass) continue
        if (rule.share !== undefined) {
          if (random() < rule.share) return decision(rule)
          continue
        }
        if (entry.left <= 0) continue
        entry.left--
        rules = rules.filter((e) => e.rule.share !== undefined || e.left > 0)
        return decision(rule)
      }
      return undefined
    },
  }
  for (const rule of initial) controller.inject(rule)
  return controller
}
