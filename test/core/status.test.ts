import { describe, expect, it } from 'vitest'
import { SYNC_TABLE } from '../../src/core/plan.ts'
import { syncLogRow } from '../../src/core/sync-log.ts'
import { SYNC_LOG_COLUMN } from '../../src/core/columns.ts'
import {
  readStatus,
  rulesMatching,
  runStatusWord,
  saysStatus,
  STATUS_RULES,
  STATUS_WORDS,
  statusRuleFormula,
  statusText,
  type RunResult,
} from '../../src/core/status.ts'

describe('the status vocabulary', () => {
  it('has one rule per word, valid colours, and no word that begins another', () => {
    expect(STATUS_RULES.map((r) => r.word)).toEqual([...STATUS_WORDS])
    for (const r of STATUS_RULES) {
      expect(r.fill).toMatch(/^[0-9A-F]{6}$/)
      expect(r.font).toMatch(/^[0-9A-F]{6}$/)
      for (const other of STATUS_WORDS) if (other !== r.word) expect(other.toLowerCase().startsWith(r.word.toLowerCase())).toBe(false)
    }
  })

  it('writes the word, the date and the reason, and each table reason matches exactly its own rule', () => {
    expect(statusText({ word: 'Conflict', reason: 'Changed both here and on the server.' }, '2026-11-22')).toBe(
      'Conflict (2026-11-22): Changed both here and on the server.',
    )
    for (const rule of SYNC_TABLE) {
      const text = statusText({ word: rule.word, reason: rule.reason }, '2026-11-22')
      expect(rulesMatching(text).map((r) => r.word)).toEqual([rule.word])
    }
  })

  it('gives every conflict and invalid pair of the table its word', () => {
    for (const rule of SYNC_TABLE) {
      if (rule.action === 'conflict') expect(rule.word).toBe('Conflict')
      if (rule.action === 'invalid') expect(rule.word).toBe('Error')
    }
  })

  it('reads its own form, the dated form of earlier versions, and anything else as a plain reason', () => {
    expect(readStatus('Error (2026-11-22): End: "x" is not a time.')).toEqual({
      word: 'Error',
      date: '2026-11-22',
      reason: 'End: "x" is not a time.',
    })
    expect(readStatus('2026-11-20: Changed both here and on the server.')).toEqual({
      word: undefined,
      date: '2026-11-20',
      reason: 'Changed both here and on the server.',
    })
    expect(readStatus('looked at by Anna')).toEqual({ word: undefined, date: undefined, reason: 'looked at by Anna' })
  })

  it("treats a status that says the same on another day as written, and an earlier version's text as not (it gets its word once)", () => {
    const status = { word: 'Waiting', reason: 'Waiting for the next import.' } as const
    expect(saysStatus('Waiting (2026-11-01): Waiting for the next import.', status)).toBe(true)
    expect(saysStatus('Done (2026-11-01): Waiting for the next import.', status)).toBe(false)
    expect(saysStatus('2026-11-01: Waiting for the next import.', status)).toBe(false)
    expect(saysStatus(null, status)).toBe(false)
  })

  it('builds the formula both spreadsheets evaluate alike', () => {
    expect(statusRuleFormula('Conflict', 10)).toBe('=LEFT($K1,8)="Conflict"')
    expect(statusRuleFormula('Done', 0, 2)).toBe('=LEFT($A2,4)="Done"')
  })

  it('matches letter case as the spreadsheets do, and nothing for text without a word', () => {
    expect(rulesMatching('conflict (2026-11-22): x').map((r) => r.word)).toEqual(['Conflict'])
    expect(rulesMatching('2026-11-22: Changed both here and on the server')).toEqual([])
    expect(rulesMatching('')).toEqual([])
  })

  it('gives each run result of the Sync log a word that matches exactly one rule', () => {
    const zero = { conflicts: 0, invalid: 0, waiting: 0, failed: 0 }
    expect(runStatusWord('success', zero)).toBe('Done')
    expect(runStatusWord('success', { ...zero, waiting: 2 })).toBe('Waiting')
    expect(runStatusWord('incomplete', zero)).toBe('Waiting')
    expect(runStatusWord('refused', zero)).toBe('Error')
    expect(runStatusWord('partial', { ...zero, conflicts: 1 })).toBe('Conflict')
    expect(runStatusWord('partial', { ...zero, conflicts: 1, invalid: 1 })).toBe('Error')
    expect(runStatusWord('partial', { ...zero, failed: 1 })).toBe('Error')
    const results: RunResult[] = ['success', 'partial', 'refused', 'incomplete']
    const columns = Object.values(SYNC_LOG_COLUMN)
    for (const result of results) {
      const row = syncLogRow({
        when: new Date(0),
        timeZone: 'UTC',
        runId: 'r',
        command: 'export',
        result,
        counts: { created: 0, updated: 0, deleted: 0, ...zero },
        message: '',
      })
      const cell = row[columns.indexOf(SYNC_LOG_COLUMN.result)]
      expect(rulesMatching(String(cell))).toHaveLength(1)
    }
  })
})
