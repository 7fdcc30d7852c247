-- A tournament: its tables (each with the hash of its write key), its teams, its rounds and the
-- events every table pushed. Events are append-only, keyed by (tournament, table, seq) like a
-- table's own SQLite log, so a push sent twice is stored once.
CREATE TABLE tournaments (
    tournament TEXT PRIMARY KEY,
    win_points INTEGER NOT NULL DEFAULT 3,
    loss_points INTEGER NOT NULL DEFAULT 1,
    created TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE tables (
    tournament TEXT NOT NULL REFERENCES tournaments (tournament),
    table_id TEXT NOT NULL,
    key_sha256 TEXT NOT NULL,
    created TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament, table_id)
);

CREATE TABLE events (
    tournament TEXT NOT NULL,
    table_id TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    kind TEXT NOT NULL,
    data JSONB NOT NULL,
    at TIMESTAMPTZ NOT NULL,
    received TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament, table_id, seq),
    FOREIGN KEY (tournament, table_id) REFERENCES tables (tournament, table_id)
);

CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;

CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

-- The organiser's word on a table's match: the latest correction of (table, match) wins; a null
-- record withdraws it. Kept apart from the table's own log, so the table's pusher never conflicts.
CREATE TABLE corrections (
    tournament TEXT NOT NULL,
    table_id TEXT NOT NULL,
    id BIGSERIAL,
    match INTEGER NOT NULL CHECK (match >= 1),
    record JSONB,
    at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament, table_id, id),
    FOREIGN KEY (tournament, table_id) REFERENCES tables (tournament, table_id)
);

CREATE TRIGGER corrections_append_only BEFORE UPDATE OR DELETE ON corrections
    FOR EACH ROW EXECUTE FUNCTION refuse_change();

CREATE TABLE teams (
    tournament TEXT NOT NULL REFERENCES tournaments (tournament),
    team TEXT NOT NULL,
    entered TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tournament, team)
);

-- One row per game of a round: two teams at a table (Nós sits 0 and 2), or a team with a bye
-- (folga: table_id and eles are null). ``match`` is the table's match number the game is played as.
CREATE TABLE pairings (
    tournament TEXT NOT NULL REFERENCES tournaments (tournament),
    round INTEGER NOT NULL CHECK (round >= 1),
    place INTEGER NOT NULL,
    table_id TEXT,
    match INTEGER,
    nos TEXT NOT NULL,
    eles TEXT,
    PRIMARY KEY (tournament, round, place),
    FOREIGN KEY (tournament, nos) REFERENCES teams (tournament, team),
    FOREIGN KEY (tournament, eles) REFERENCES teams (tournament, team),
    FOREIGN KEY (tournament, table_id) REFERENCES tables (tournament, table_id)
);
