// The OASIS TC's CSDL converter (CommonJS, without types of its own): what service-model.ts uses.
declare module 'odata-csdl' {
  export function xml2json(xml: string, options?: { annotations?: boolean }): unknown;
}
