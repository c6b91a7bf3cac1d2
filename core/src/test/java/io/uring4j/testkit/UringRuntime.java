package io.uring4j.testkit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A {@link io.uring4j.runtime.Uring} field that the test kit starts and stops: a static field once for the class
 * (before {@code @BeforeAll} methods, closed after {@code @AfterAll}), an instance field once per test (before
 * {@code @BeforeEach} methods, closed as soon as the test method returns, so {@code @AfterEach} methods may then
 * free what its requests used, such as an arena). Built with {@code Uring.builder().loops(loops())}, on the engine
 * the run names ({@code uring4j.engine}).
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(UringRuntimeExtension.class)
public @interface UringRuntime {
    /** The runtime's event loops. */
    int loops();
}
