// The MIME types a browser Office editor opens for editing: word processing, spreadsheet and
// presentation documents, in their current (OOXML) and legacy binary forms. Objects report it as
// `is_office_editable`, and `/edit/` refuses everything else.
const OFFICE_EDITABLE = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document', // .docx
  'application/msword', // .doc
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', // .xlsx
  'application/vnd.ms-excel', // .xls
  'application/vnd.openxmlformats-officedocument.presentationml.presentation', // .pptx
  'application/vnd.ms-powerpoint', // .ppt
]);

/** Whether browser edit mode exists for this MIME type; parameters and case are ignored. */
export function isOfficeEditable(mimetype: string): boolean {
  return OFFICE_EDITABLE.has(mimetype.split(';')[0]!.trim().toLowerCase());
}
