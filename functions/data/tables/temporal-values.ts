// The lexical forms of the temporal Table Schema types (date, time, datetime, yearmonth, duration):
// parsing without JavaScript's Date (whose Date.UTC maps years 0–99 to 1900–1999), the canonical form
// a value is stored and answered in, and an order key that compares as PostgreSQL's column types do.

export interface Parsed {
  /** The canonical lexical form: what is stored, and what PostgreSQL answers (see field-json.ts). */
  canonical: string;
  /** Compares like PostgreSQL compares the column type (`<` on strings or on bigints). */
  key: string | bigint;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;
const YEARMONTH = /^(\d{4})-(\d{2})$/;
// Integer designators, a fraction on seconds only (the XML Schema rule), weeks as ISO 8601 has them.
const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,6}))?S)?)?$/;

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [month <= 2 ? era * 400 + yoe + 1 : era * 400 + yoe, month, day];
}

function validDay(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `.5` for 500000 µs, '' for none: PostgreSQL's output drops trailing zeros the same way. */
function fraction(digits: string | undefined): string {
  const trimmed = (digits ?? '').replace(/0+$/, '');
  return trimmed === '' ? '' : `.${trimmed}`;
}

export function parseDate(text: string): Parsed | undefined {
  const match = DATE.exec(text);
  if (match === null) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return validDay(year, month, day) ? { canonical: text, key: text } : undefined;
}

export function parseTime(text: string): Parsed | undefined {
  const match = TIME.exec(text);
  if (match === null || Number(match[2]) > 59 || Number(match[3]) > 59) return undefined;
  // 24:00:00, the end of a day, as XML Schema 1.0 and PostgreSQL's time have it; no later instant.
  const hour = Number(match[1]);
  if (hour > 24 || (hour === 24 && (Number(match[2]) > 0 || Number(match[3]) > 0 || /[1-9]/.test(match[4] ?? '')))) return undefined;
  const canonical = `${match[1]}:${match[2]}:${match[3]}${fraction(match[4])}`;
  return { canonical, key: `${match[1]}:${match[2]}:${match[3]}.${(match[4] ?? '').padEnd(6, '0')}` };
}

/**
 * RFC 3339 with the offset required (Table Schema's form is `…Z`; other offsets are taken and moved to
 * UTC). The instant must fall in years 0001–9999 UTC, where the canonical text sorts like the instant.
 */
export function parseDatetime(text: string): Parsed | undefined {
  const match = DATETIME.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(match[i]));
  if (!validDay(year!, month!, day!) || hour! > 23 || minute! > 59 || second! > 59) return undefined;
  let offsetMinutes = 0;
  if (match[8] === undefined) {
    const [offsetHours, offsetRest] = [Number(match[10]), Number(match[11])];
    if (offsetHours > 23 || offsetRest > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetRest);
  }
  const totalMinutes = daysFromCivil(year!, month!, day!) * 1440 + hour! * 60 + minute! - offsetMinutes;
  const days = Math.floor(totalMinutes / 1440);
  const minutesOfDay = totalMinutes - days * 1440;
  const [utcYear, utcMonth, utcDay] = civilFromDays(days);
  if (utcYear < 1 || utcYear > 9999) return undefined;
  const stem = `${pad(utcYear, 4)}-${pad(utcMonth, 2)}-${pad(utcDay, 2)}T${pad(Math.floor(minutesOfDay / 60), 2)}:${pad(minutesOfDay % 60, 2)}:${pad(second!, 2)}`;
  return { canonical: `${stem}${fraction(match[7])}Z`, key: `${stem}.${(match[7] ?? '').padEnd(6, '0')}` };
}

export function parseYearmonth(text: string): Parsed | undefined {
  const match = YEARMONTH.exec(text);
  if (match === null || Number(match[1]) < 1 || Number(match[2]) < 1 || Number(match[2]) > 12) return undefined;
  return { canonical: text, key: text };
}

const MICROS_PER_DAY = 86_400_000_000n;
const INT32_MAX = 2_147_483_647n;
/** PostgreSQL keeps an interval's time part in microseconds as a 64-bit integer. */
const INT64_MAX = 9_223_372_036_854_775_807n;

/** An interval as PostgreSQL holds it: months, days and microseconds, each in its own range. */
export interface Interval {
  months: bigint;
  days: bigint;
  micros: bigint;
}

/** The ISO 8601 form PostgreSQL answers for an interval (field-json.ts builds the same text in SQL). */
export function formatInterval({ months, days, micros }: Interval): string {
  const years = months / 12n;
  const restMonths = months % 12n;
  const hours = micros / 3_600_000_000n;
  const minutes = (micros % 3_600_000_000n) / 60_000_000n;
  const secondMicros = micros % 60_000_000n;
  const seconds = `${secondMicros / 1_000_000n}${fraction(pad(Number(secondMicros % 1_000_000n), 6))}`;
  const date = `${years > 0n ? `${years}Y` : ''}${restMonths > 0n ? `${restMonths}M` : ''}${days > 0n ? `${days}D` : ''}`;
  const time = `${hours > 0n ? `${hours}H` : ''}${minutes > 0n ? `${minutes}M` : ''}${secondMicros > 0n ? `${seconds}S` : ''}`;
  if (date === '' && time === '') return 'PT0S';
  return `P${date}${time === '' ? '' : `T${time}`}`;
}

/** Whether the text has the accepted duration syntax, whatever the size of its numbers. */
export function isDurationText(text: string): boolean {
  return DURATION.test(text) && text !== 'P' && !text.endsWith('T') && text.length <= 200;
}

/** An ISO 8601 duration as PostgreSQL's interval, or undefined when malformed or out of its range. */
export function parseInterval(text: string): Interval | undefined {
  if (!isDurationText(text)) return undefined;
  const match = DURATION.exec(text)!;
  const part = (i: number) => BigInt(match[i] ?? '0');
  const months = part(1) * 12n + part(2);
  const days = part(3) * 7n + part(4);
  const micros = part(5) * 3_600_000_000n + part(6) * 60_000_000n + part(7) * 1_000_000n + BigInt((match[8] ?? '').padEnd(6, '0'));
  if (months > INT32_MAX || days > INT32_MAX || micros > INT64_MAX) return undefined;
  return { months, days, micros };
}

/** Durations compare as PostgreSQL compares intervals: a month is 30 days, a day 24 hours. */
export function parseDuration(text: string): Parsed | undefined {
  const interval = parseInterval(text);
  if (interval === undefined) return undefined;
  return { canonical: formatInterval(interval), key: (interval.months * 30n + interval.days) * MICROS_PER_DAY + interval.micros };
}

const LEGACY_DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?(?:(Z)|([+-]\d{2}):?(\d{2}))?$/;
const LEGACY_TIME = /^(\d{2}):(\d{2})$/;

/**
 * The lexical form of a datetime or time that schemas saved before the strict forms could hold in
 * their constraint values and defaults (a space for `T`, no seconds, no offset, `+0200`), rewritten
 * into the strict form: seconds `:00`, and a datetime without an offset taken as UTC (the session time
 * zone its CHECK was created in). Undefined when the text is not such a form. Only stored schemas are
 * read this way; a schema saved now must use the strict form.
 */
export function legacyTemporalText(type: string, text: string): string | undefined {
  if (type === 'time') {
    const match = LEGACY_TIME.exec(text);
    return match === null ? undefined : `${match[1]}:${match[2]}:00`;
  }
  if (type !== 'datetime') return undefined;
  const match = LEGACY_DATETIME.exec(text);
  if (match === null) return undefined;
  const offset = match[7] === undefined ? 'Z' : `${match[7]}:${match[8]}`;
  return `${match[1]}T${match[2]}:${match[3]}:${match[4] ?? '00'}${match[5] ?? ''}${offset}`;
}
