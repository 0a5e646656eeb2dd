// js-md4 ships no type declarations.
declare module 'js-md4' {
  interface Md4 {
    (message: string | ArrayBuffer | Uint8Array): string
    arrayBuffer(message: string | ArrayBuffer | Uint8Array): ArrayBuffer
  }
  const md4: Md4
  export default md4
}
