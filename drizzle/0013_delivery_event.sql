-- An event's deliveries, for the intent timeline's counts (src/store/events.ts): without it each
-- count read every delivery row. README Decisions.
CREATE INDEX `webhook_deliveries_event` ON `webhook_deliveries` (`event_id`);