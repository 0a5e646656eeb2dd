/**
 * Every identifier the Timeline API brands comes from one vendor token:
 * real servers say `manictime`, the project's spec says `service`.
 */
import { checkOption } from '../core/options.ts'

export interface VendorIdentifiers {
  readonly token: string
  /** `application/vnd.<vendor>.v3+json` */
  readonly mediaType: string
  /** `<vendor>/<name>` link relation */
  rel(name: string): string
  /** Cloud API scope, `<vendor>api` */
  readonly scope: string
  /** Schema name such as `ManicTime/Tags` or `Service/Tags` */
  schema(name: string): string
}

export const DEFAULT_VENDOR = 'manictime'

const SCHEMA_BRANDS: Record<string, string> = { manictime: 'ManicTime', service: 'Service' }

export function vendorIdentifiers(token: string = DEFAULT_VENDOR): VendorIdentifiers {
  checkOption('vendor', token, 'a lower-case token such as manictime')
  // Own entries only: a token such as `constructor` is a vendor of its own, not a member every object has.
  const brand = Object.hasOwn(SCHEMA_BRANDS, token) ? SCHEMA_BRANDS[token]! : token.charAt(0).toUpperCase() + token.slice(1)
  return Object.freeze({
    token,
    mediaType: `application/vnd.${token}.v3+json`,
    rel: (name: string) => `${token}/${name}`,
    scope: `${token}api`,
    schema: (name: string) => `${brand}/${name}`,
  })
}
