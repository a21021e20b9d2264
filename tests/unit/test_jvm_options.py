"""The driver JVM options of the session we launch: ours only where the user tunes nothing (issue 17)."""

from __future__ import annotations

from hiveacid_sql.exec.session import DRIVER_JVM_OPTIONS, LOG4J2_CONFIG, session_settings

JAVA = "spark.driver.extraJavaOptions"


def test_our_jit_and_gc_options_join_the_utc_zone_when_the_user_tunes_nothing() -> None:
    options = session_settings(environ={}, verbose=True)[JAVA].split()
    assert options == ["-Duser.timezone=UTC", *DRIVER_JVM_OPTIONS.split()]
    quiet = session_settings(environ={"SPARK_SUBMIT_OPTS": "-Dx=1"})[JAVA].split()  # no -XX: there
    assert quiet == [*options, f"-Dlog4j2.configurationFile={LOG4J2_CONFIG.as_uri()}"]
    assert "-XX:+UseSerialGC" not in session_settings(environ={})["spark.executor.extraJavaOptions"]


def test_a_users_java_options_replace_ours_but_keep_the_utc_zone() -> None:
    mine = {JAVA: "-Duser.timezone=UTC -XX:+UseG1GC"}
    assert session_settings(mine, environ={}, verbose=True)[JAVA] == "-Duser.timezone=UTC -XX:+UseG1GC"
    without_zone = {JAVA: "-XX:+UseG1GC", "spark.executor.extraJavaOptions": "-Xss4m"}
    settings = session_settings(without_zone, environ={}, verbose=True)
    assert settings[JAVA] == "-Duser.timezone=UTC -XX:+UseG1GC"
    assert settings["spark.executor.extraJavaOptions"] == "-Duser.timezone=UTC -Xss4m"
    other_zone = {JAVA: "-Duser.timezone=Europe/Paris"}
    assert session_settings(other_zone, environ={}, verbose=True)[JAVA] == "-Duser.timezone=Europe/Paris"
    settings = session_settings({"spark.driver.defaultJavaOptions": "-Xss4m"}, environ={}, verbose=True)
    assert settings[JAVA] == "-Duser.timezone=UTC" and settings["spark.driver.defaultJavaOptions"] == "-Xss4m"


def test_jvm_tuning_in_the_environment_leaves_ours_out() -> None:
    """A second collector flag would stop the JVM from starting ("Conflicting collector combinations")."""
    for name in ("SPARK_SUBMIT_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
        assert session_settings(environ={name: "-XX:+UseParallelGC"}, verbose=True)[JAVA] == "-Duser.timezone=UTC"
