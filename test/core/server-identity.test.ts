import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sameServer } from '../../src/core/server-identity.ts'

describe('sameServer', () => {
  it('tells servers and accounts apart', () => {
    expect(sameServer({ entryUrl: 'https://t.example.com/api' }, { entryUrl: 'https://T.example.com:443/api/' })).toBe(true)
    expect(sameServer({ entryUrl: 'https://t.example.com/api' }, { entryUrl: 'https://other.example.com/api' })).toBe(false)
    expect(sameServer({ entryUrl: 'https://t.example.com/api' }, { entryUrl: 'http://t.example.com/api' })).toBe(false)
    expect(sameServer({ entryUrl: 'https://t.example.com/a/api' }, { entryUrl: 'https://t.example.com/b/api' })).toBe(false)
    expect(
      sameServer(
        { entryUrl: 'https://t.example.com/api', account: 'EXAMPLE\\Bridge' },
        { entryUrl: 'https://t.example.com/api', account: 'example\\bridge' },
      ),
    ).toBe(true)
    expect(
      sameServer({ entryUrl: 'https://t.example.com/api', account: 'alice' }, { entryUrl: 'https://t.example.com/api', account: 'bob' }),
    ).toBe(false)
    // A cloud account is its own server URL; the configuration names no account.
    expect(sameServer({ entryUrl: 'https://api.example.com/c/1/', account: undefined }, { entryUrl: 'https://api.example.com/c/2/' })).toBe(
      false,
    )
  })

  it('is reflexive and symmetric for any URL and account', () => {
    const server = fc.record({ entryUrl: fc.oneof(fc.webUrl(), fc.string()), account: fc.option(fc.string(), { nil: undefined }) })
    fc.assert(fc.property(server, server, (x, y) => sameServer(x, x) && sameServer(x, y) === sameServer(y, x)))
  })
})
