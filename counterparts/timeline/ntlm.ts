/**
 * Windows sign-in for the reference server: an NTLMv2 authenticator that
 * really checks the password (reference/auth-and-libraries.md §4), so tests
 * cover a wrong password as well as the handshake. NTLM authenticates a TCP
 * connection, so the state is keyed on the connection id the loopback mount
 * adds (`x-loopback-connection`); msw requests carry none and are refused.
 * Under `Negotiate` it carries the same NTLM messages, as Windows does when a
 * client sends NTLM inside Negotiate; it takes no Kerberos ticket.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import md4 from 'js-md4'
import { CONNECTION_HEADER } from '../mount.ts'
import type { AuthContext, AuthResult, Authenticator } from './authenticator.ts'

export interface NtlmAuthenticatorOptions {
  /** NetBIOS domain the server announces in its challenge. @default 'EXAMPLE' */
  domain?: string
  /** NetBIOS computer name the server announces. @default 'TIMELINE' */
  computer?: string
  /**
   * Schemes the 401 offers, one `WWW-Authenticate` header each, in this
   * order: `['Negotiate', 'NTLM']` as Windows servers usually do, or
   * `['Negotiate']` for a site whose only provider is Negotiate. Each takes
   * the NTLM handshake and answers a step under the scheme the client used.
   * @default ['NTLM']
   */
  schemes?: ReadonlyArray<NtlmScheme>
}

/** A scheme the NTLM counterpart can offer. */
export type NtlmScheme = 'Negotiate' | 'NTLM'

type ConnectionState = { step: 'challenged'; challenge: Buffer } | { step: 'authenticated'; username: string }

const NTLM_SIGNATURE = Buffer.from('NTLMSSP\0', 'ascii')
// UNICODE | REQUEST_TARGET | NTLM | ALWAYS_SIGN | TARGET_TYPE_DOMAIN | EXTENDED_SESSIONSECURITY | TARGET_INFO | 128 | 56
const TYPE2_FLAGS = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00010000 | 0x00080000 | 0x00800000 | 0x20000000 | 0x80000000

/**
 * Authenticator for a server set up with Windows accounts. Users are the
 * store's directory-style users (`EXAMPLE\alice`) with their store passwords.
 */
export function createNtlmAuthenticator(
  options: NtlmAuthenticatorOptions = {},
): Authenticator & { connections: Map<string, ConnectionState> } {
  const domain = options.domain ?? 'EXAMPLE'
  const computer = options.computer ?? 'TIMELINE'
  const connections = new Map<string, ConnectionState>()
  const schemes = options.schemes ?? ['NTLM']
  if (schemes.length === 0 || schemes.some((scheme) => scheme !== 'Negotiate' && scheme !== 'NTLM')) {
    throw new TypeError(`Expected \`schemes\` to be a non-empty list of "Negotiate" and "NTLM", got ${JSON.stringify(schemes)}`)
  }
  const offered = new Map(schemes.map((scheme) => [scheme.toLowerCase(), scheme]))

  const refuse = (connection: string | null, message: string, challenge?: { scheme: string; token: string }): AuthResult => {
    if (connection && !challenge) connections.delete(connection)
    const headers = new Headers({ 'content-type': 'application/json; charset=utf-8' })
    if (challenge) headers.set('www-authenticate', `${challenge.scheme} ${challenge.token}`)
    // Windows servers send one header per scheme; a fetch joins them with ", ".
    else for (const scheme of schemes) headers.append('www-authenticate', scheme)
    return { ok: false, response: new Response(JSON.stringify({ errorCode: 'Unauthorized', message }), { status: 401, headers }) }
  }

  return {
    mode: 'ntlm',
    connections,
    async authenticate(request: Request, context: AuthContext): Promise<AuthResult> {
      const id = request.headers.get(CONNECTION_HEADER)
      // Ids count from 1 per loopback server: qualify them, so one authenticator can serve several.
      const connection = id === null ? null : `${new URL(request.url).host}#${id}`
      const header = request.headers.get('authorization')
      const known = connection ? connections.get(connection) : undefined
      if (!header) {
        if (known?.step === 'authenticated') return { ok: true, username: known.username }
        return refuse(connection, 'Windows authentication required.')
      }
      if (!connection) return refuse(connection, 'NTLM needs a persistent connection.')
      const match = /^(\S+)\s+([A-Za-z0-9+/=]+)\s*$/.exec(header)
      const scheme = match ? offered.get(match[1]!.toLowerCase()) : undefined
      if (!match?.[2] || !scheme) return refuse(connection, 'Unsupported authorization scheme.')
      // A Negotiate token that is not NTLM (a Kerberos ticket) is not taken: the client gets the bare offer again.
      const message = Buffer.from(match[2], 'base64')
      if (message.length < 12 || !message.subarray(0, 8).equals(NTLM_SIGNATURE)) return refuse(connection, 'Malformed NTLM message.')
      const type = message.readUInt32LE(8)
      if (type === 1) {
        const challenge = randomBytes(8)
        connections.set(connection, { step: 'challenged', challenge })
        return refuse(connection, 'NTLM challenge.', { scheme, token: type2Message(challenge, domain, computer).toString('base64') })
      }
      if (type === 3 && known?.step === 'challenged') {
        const username = verifyType3(message, known.challenge, context)
        if (!username) return refuse(connection, 'Windows sign-in failed: unknown user or wrong password.')
        connections.set(connection, { step: 'authenticated', username })
        return { ok: true, username }
      }
      return refuse(connection, 'Unexpected NTLM message.')
    },
  }
}

function type2Message(challenge: Buffer, domain: string, computer: string): Buffer {
  const targetName = Buffer.from(domain, 'utf16le')
  const targetInfo = Buffer.concat([avPair(2, domain), avPair(1, computer), Buffer.alloc(4)])
  const header = Buffer.alloc(48)
  NTLM_SIGNATURE.copy(header, 0)
  header.writeUInt32LE(2, 8)
  header.writeUInt16LE(targetName.length, 12)
  header.writeUInt16LE(targetName.length, 14)
  header.writeUInt32LE(48, 16)
  header.writeUInt32LE(TYPE2_FLAGS >>> 0, 20)
  challenge.copy(header, 24)
  header.writeUInt16LE(targetInfo.length, 40)
  header.writeUInt16LE(targetInfo.length, 42)
  header.writeUInt32LE(48 + targetName.length, 44)
  return Buffer.concat([header, targetName, targetInfo])
}

function avPair(id: number, value: string): Buffer {
  const data = Buffer.from(value, 'utf16le')
  const head = Buffer.alloc(4)
  head.writeUInt16LE(id, 0)
  head.writeUInt16LE(data.length, 2)
  return Buffer.concat([head, data])
}

function securityBuffer(message: Buffer, offset: number): Buffer {
  if (message.length < offset + 8) return Buffer.alloc(0)
  const length = message.readUInt16LE(offset)
  const start = message.readUInt32LE(offset + 4)
  if (start + length > message.length) return Buffer.alloc(0)
  return message.subarray(start, start + length)
}

/** Checks HMAC_MD5(NTOWFv2, challenge || blob) == NTProofStr; returns the store username on success. */
function verifyType3(message: Buffer, challenge: Buffer, context: AuthContext): string | undefined {
  const ntResponse = securityBuffer(message, 20)
  const domain = securityBuffer(message, 28).toString('utf16le')
  const user = securityBuffer(message, 36).toString('utf16le')
  if (ntResponse.length <= 24 || !user) return undefined
  const record = context.store.user(domain ? `${domain}\\${user}` : user) ?? context.store.user(user)
  if (!record) return undefined
  const ntHash = Buffer.from(md4.arrayBuffer(Buffer.from(record.password, 'utf16le')))
  const ntowfv2 = createHmac('md5', ntHash)
    .update(Buffer.from(user.toUpperCase() + domain, 'utf16le'))
    .digest()
  const proof = ntResponse.subarray(0, 16)
  const blob = ntResponse.subarray(16)
  const expected = createHmac('md5', ntowfv2)
    .update(Buffer.concat([challenge, blob]))
    .digest()
  return timingSafeEqual(proof, expected) ? record.username : undefined
}
