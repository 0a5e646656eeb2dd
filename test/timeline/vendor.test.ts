/** One vendor token brands every identifier (the media type, link relations, the cloud scope, schema names). */
import { describe, expect, it } from 'vitest'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'
import { OptionError } from '../../src/core/options.ts'

describe('vendor identifiers', () => {
  it('real servers say manictime, the spec says service', () => {
    const real = vendorIdentifiers()
    expect([real.mediaType, real.rel('token'), real.scope, real.schema('Tags')]).toEqual([
      'application/vnd.manictime.v3+json',
      'manictime/token',
      'manictimeapi',
      'ManicTime/Tags',
    ])
    expect(vendorIdentifiers('service').schema('Tags')).toBe('Service/Tags')
  })

  it('another token is its own brand, even one named like a member every object has', () => {
    expect(vendorIdentifiers('acme').schema('Tags')).toBe('Acme/Tags')
    expect(vendorIdentifiers('constructor').schema('Tags')).toBe('Constructor/Tags')
    expect(vendorIdentifiers('tostring').schema('Tags')).toBe('Tostring/Tags')
  })

  it('refuses a token that is not a lower-case word', () => {
    for (const token of ['', 'ManicTime', 'a b', '1x', 'x/y']) expect(() => vendorIdentifiers(token)).toThrow(OptionError)
  })
})
