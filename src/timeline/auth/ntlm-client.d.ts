// @ewsjs/ntlm-client ships no type declarations. It is CommonJS: import the
// default export (`import ntlm from '@ewsjs/ntlm-client'`); named imports
// expose only createType1Message.
declare module '@ewsjs/ntlm-client' {
  interface Type2Message {
    flags: number
    encoding: 'ascii' | 'ucs2'
    version: 1 | 2
    challenge: Buffer
    targetName: string
    targetInfo?: { parsed: Record<string, string>; buffer: Buffer }
  }
  const ntlm: {
    /** Returns `NTLM <base64>`. */
    createType1Message(workstation?: string, target?: string): string
    /** Accepts `NTLM <base64>` or the bare base64 token. */
    decodeType2Message(message: string): Type2Message
    /** Returns `NTLM <base64>`. */
    createType3Message(type2: Type2Message, username: string, password: string, workstation?: string, target?: string): string
  }
  export default ntlm
}
