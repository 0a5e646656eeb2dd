import { describe, expect, it } from 'vitest'
import { fingerprint, fnv1a64Base64url, normaliseSyncedValues, type SyncedValues } from '../../src/core/fingerprint.ts'

const values: SyncedValues = {
  user: 'ACME\\anna',
  start: '2026-03-02T09:00:00+01:00',
  duration: 5400,
  tags: ['Acme', 'Website', ':billable'],
  notes: 'Kick-off',
}

describe('fingerprint', () => {
  it('is FNV-1a 64 (published test vectors) as base64url', () => {
    // FNV-1a 64 of "" is cbf29ce484222325, of "a" is af63dc4c8601ec8c.
    expect(fnv1a64Base64url('')).toBe(Buffer.from('cbf29ce484222325', 'hex').toString('base64url'))
    expect(fnv1a64Base64url('a')).toBe(Buffer.from('af63dc4c8601ec8c', 'hex').toString('base64url'))
  })

  it('equals a BigInt FNV-1a 64 over the UTF-8 bytes, non-ASCII and lone surrogates included', () => {
    const reference = (text: string) => {
      let hash = 0xcbf29ce484222325n
      for (const byte of new TextEncoder().encode(text)) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn
      return Buffer.from(hash.toString(16).padStart(16, '0'), 'hex').toString('base64url')
    }
    const texts = [
      'foobar',
      'Ärger über Öl',
      '日本語のメモ',
      'emoji 😀 and \ud800 lone \udc00',
      '\u0000\u007f\u0080\uffff',
      'x'.repeat(1000),
    ]
    for (let i = 0; i < 500; i++)
      texts.push(String.fromCharCode(...Array.from({ length: i % 40 }, (_, j) => (i * 7919 + j * 104729) % 0xffff)))
    for (const text of texts) expect(fnv1a64Base64url(text)).toBe(reference(text))
  })

  it('is stable: 11 characters, the same for the same values, pinned across releases', () => {
    const fp = fingerprint(values)
    expect(fp).toMatch(/^[A-Za-z0-9_-]{11}$/)
    expect(fingerprint({ ...values, tags: [...values.tags] })).toBe(fp)
    expect(normaliseSyncedValues(values)).toBe('[1,"ACME\\\\anna",1772438400,5400,["Acme","Website",":billable"],"Kick-off"]')
    expect(fp).toBe('Wsa0vfC6R7c')
  })

  it('ignores how the instant is written, where labels sit, empty vs absent notes and line endings', () => {
    const fp = fingerprint(values)
    expect(fingerprint({ ...values, start: '2026-03-02T08:00:00Z' })).toBe(fp)
    expect(fingerprint({ ...values, tags: [':billable', 'Acme', 'Website'] })).toBe(fp)
    expect(fingerprint({ ...values, notes: undefined })).toBe(fingerprint({ ...values, notes: '' }))
    expect(fingerprint({ ...values, notes: 'a\r\nb' })).toBe(fingerprint({ ...values, notes: 'a\nb' }))
  })

  it.each([
    ['user', { user: 'ACME\\ben' }],
    ['start', { start: '2026-03-02T09:00:01+01:00' }],
    ['duration', { duration: 5401 }],
    ['tag order', { tags: ['Website', 'Acme', ':billable'] }],
    ['tag case', { tags: ['acme', 'Website', ':billable'] }],
    ['a label', { tags: ['Acme', 'Website'] }],
    ['notes', { notes: 'Kick-off ' }],
  ] as const)('changes when %s changes', (_name, change) => {
    expect(fingerprint({ ...values, ...change })).not.toBe(fingerprint(values))
  })
})
