import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { StrictSearchResponse } from '../../src/modules/search/search.schemas.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);

/** A search body is built by PostgreSQL, so tests check it against the schema, strict at every level. */
export const matchesSearchSchema = ajv.compile(StrictSearchResponse);
