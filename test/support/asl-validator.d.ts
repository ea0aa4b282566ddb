// asl-validator 4.0.0 ships JavaScript without types; the one call the tests make.
declare module 'asl-validator' {
  export default function validator(
    definition: unknown,
    options?: Record<string, unknown>,
  ): { isValid: boolean; errors: unknown[]; errorsText(separator?: string): string };
}
