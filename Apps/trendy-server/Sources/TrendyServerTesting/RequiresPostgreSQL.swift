import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test only where `TRENDY_TEST_POSTGRES_URL` names a database (scripts/with-postgres sets it); elsewhere
    /// it is skipped with the reason, which `make test-postgres` turns into a failure when PostgreSQL is required.
    public static var requiresPostgreSQL: Self {
        .enabled(if: LiveTrendyServer.postgresTestStorage() != nil, "\(LiveTrendyServer.postgresUnavailableReason)")
    }
}
