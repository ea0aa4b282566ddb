// The part of the `tableschema` (1.12.6) API the differential test uses (the package ships no types).
declare module 'tableschema' {
  interface Field {
    readonly name: string;
    /** The value cast to the field's type; throws when it is not of the type or breaks a constraint. */
    castValue(value: unknown, options?: { constraints?: boolean }): unknown;
  }

  interface Schema {
    readonly valid: boolean;
    readonly errors: Error[];
    getField(name: string): Field | null;
  }

  const tableschema: {
    Schema: { load(descriptor: object, options?: { strict?: boolean }): Promise<Schema> };
  };
  export default tableschema;
}
