// A clock for the runtime's `now` port that a test moves: it runs with the system clock, shifted by
// however far the test has moved it, so rules that depend on time (invitation expiry) are tested
// without editing rows, and `reset` puts it back so no test leaves the next one in the future.
export class FakeClock {
  private offsetMs = 0;

  readonly now = (): Date => new Date(Date.now() + this.offsetMs);

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  reset(): void {
    this.offsetMs = 0;
  }
}
