// ics.mjs FILE
//
// Reads an agreed room's calendar entry (.ics, RFC 5545) with Mozilla's
// ical.js, as a calendar application would, and prints what it read:
// the calendar's METHOD, PRODID and VERSION, and per VEVENT its UID,
// SUMMARY, start and end (as instants, and the zone ical.js put them in),
// ORGANIZER, STATUS, URL and DESCRIPTION. Exits non-zero when it does not
// parse or holds no event.
import { readFileSync } from 'node:fs';
import ICAL from 'ical.js';

const cal = new ICAL.Component(ICAL.parse(readFileSync(process.argv[2], 'utf8')));
if (cal.name !== 'vcalendar') throw new Error(`not a VCALENDAR: ${cal.name}`);
const events = cal.getAllSubcomponents('vevent').map((c) => {
  const e = new ICAL.Event(c);
  const organizer = c.getFirstProperty('organizer');
  return {
    uid: e.uid,
    summary: e.summary,
    start: e.startDate.toJSDate().toISOString(),
    end: e.endDate.toJSDate().toISOString(),
    start_zone: e.startDate.zone?.tzid ?? '',
    end_zone: e.endDate.zone?.tzid ?? '',
    duration_seconds: e.duration.toSeconds(),
    organizer: organizer?.getFirstValue() ?? '',
    organizer_cn: organizer?.getParameter('cn') ?? '',
    status: c.getFirstPropertyValue('status') ?? '',
    url: c.getFirstPropertyValue('url') ?? '',
    description: e.description ?? '',
    dtstamp: c.getFirstPropertyValue('dtstamp')?.toJSDate().toISOString() ?? '',
  };
});
if (events.length === 0) throw new Error('no VEVENT');
process.stdout.write(JSON.stringify({
  method: cal.getFirstPropertyValue('method') ?? '',
  prodid: cal.getFirstPropertyValue('prodid') ?? '',
  version: cal.getFirstPropertyValue('version') ?? '',
  events,
}) + '\n');
