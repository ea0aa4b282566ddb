// The checked string formats (email, uri, binary, uuid) and the two geographic types (geopoint in
// its three formats, geojson by structure). Pure functions over JSON values, used by field-types.ts.
import type { GeopointFormat } from './table-descriptor.ts';

// RFC 5322 dot-atom local part, a dotted domain of RFC 1035 labels: no `a..b`, no spaces.
const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const EMAIL = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${LABEL}(?:\\.${LABEL})+$`);
// RFC 3986: a scheme, then only unreserved, reserved and well-formed percent-encoded characters.
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
// RFC 4648 base64 with padding, the standard alphabet.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const isEmail = (text: string): boolean => text.length <= 254 && EMAIL.test(text);
export const isUri = (text: string): boolean => URI.test(text);
export const isBase64 = (text: string): boolean => BASE64.test(text);
export const isUuid = (text: string): boolean => UUID.test(text);

/** PostgreSQL text and jsonb cannot hold U+0000, anywhere in a value (keys included). */
export function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null || depth > 200) return false;
  if (Array.isArray(value)) return value.some((item) => containsNul(item, depth + 1));
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || containsNul(item, depth + 1));
}

export const GEOPOINT_FORMATS: readonly GeopointFormat[] = ['default', 'array', 'object'];

const NUMBER_TEXT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function inRange(lon: number, lat: number): boolean {
  return Number.isFinite(lon) && Number.isFinite(lat) && Math.abs(lon) <= 180 && Math.abs(lat) <= 90;
}

/**
 * A geopoint in the field's own format, in that format's one stored form: `"lon, lat"` (default),
 * `[lon, lat]` (array) or `{"lon", "lat"}` (object); undefined when it is not one.
 */
export function canonicalGeopoint(format: GeopointFormat, value: unknown): unknown {
  if (format === 'default') {
    if (typeof value !== 'string') return undefined;
    const parts = value.split(',').map((part) => part.trim());
    if (parts.length !== 2 || !parts.every((part) => NUMBER_TEXT.test(part))) return undefined;
    const [lon, lat] = parts.map(Number) as [number, number];
    return inRange(lon, lat) ? `${lon}, ${lat}` : undefined;
  }
  if (format === 'array') {
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'number' || typeof value[1] !== 'number') return undefined;
    return inRange(value[0], value[1]) ? [value[0], value[1]] : undefined;
  }
  if (!isPlainObject(value) || Object.keys(value).length !== 2 || typeof value.lon !== 'number' || typeof value.lat !== 'number')
    return undefined;
  return inRange(value.lon, value.lat) ? { lon: value.lon, lat: value.lat } : undefined;
}

function isPosition(value: unknown): boolean {
  return Array.isArray(value) && value.length >= 2 && value.length <= 3 && value.every((n) => typeof n === 'number' && Number.isFinite(n));
}

const isPositions = (value: unknown, min: number): value is unknown[] =>
  Array.isArray(value) && value.length >= min && value.every(isPosition);

function isRing(value: unknown): boolean {
  if (!isPositions(value, 4)) return false;
  return JSON.stringify(value[0]) === JSON.stringify(value[value.length - 1]);
}

const isListOf = (value: unknown, check: (item: unknown) => boolean): boolean => Array.isArray(value) && value.every(check);

function isGeometry(value: unknown, depth: number): boolean {
  if (!isPlainObject(value) || depth > 20) return false;
  const c = value.coordinates;
  switch (value.type) {
    case 'Point':
      return isPosition(c);
    case 'MultiPoint':
      return isPositions(c, 0);
    case 'LineString':
      return isPositions(c, 2);
    case 'MultiLineString':
      return isListOf(c, (line) => isPositions(line, 2));
    case 'Polygon':
      return isListOf(c, isRing);
    case 'MultiPolygon':
      return isListOf(c, (polygon) => isListOf(polygon, isRing));
    case 'GeometryCollection':
      return isListOf(value.geometries, (geometry) => isGeometry(geometry, depth + 1));
    default:
      return false;
  }
}

function isFeature(value: unknown): boolean {
  if (!isPlainObject(value) || value.type !== 'Feature') return false;
  const { geometry, properties, id } = value;
  return (
    (geometry === null || isGeometry(geometry, 0)) &&
    (properties === null || isPlainObject(properties)) &&
    (id === undefined || typeof id === 'string' || typeof id === 'number')
  );
}

/** RFC 7946 GeoJSON by structure: geometry types, positions, closed rings, features and collections. */
export function isGeojson(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  if (value.type === 'Feature') return isFeature(value);
  if (value.type === 'FeatureCollection') return isListOf(value.features, isFeature);
  return isGeometry(value, 0);
}
