package dev.regroup.oracle.script;

/** A script line that cannot be run (bad input), reported with its line number by the runner. */
public final class ScriptException extends RuntimeException {
    public ScriptException(String message) {
        super(message);
    }
}
