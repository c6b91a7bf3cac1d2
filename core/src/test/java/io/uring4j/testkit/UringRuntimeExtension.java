package io.uring4j.testkit;

import io.uring4j.runtime.Uring;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.List;

/** Starts and stops the {@link UringRuntime} fields of a test class. */
public final class UringRuntimeExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterTestExecutionCallback, AfterEachCallback {

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start(fields(context, true), null);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        stop(fields(context, true), null);
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        start(fields(context, false), context.getRequiredTestInstance());
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws Exception {
        stop(fields(context, false), context.getRequiredTestInstance());
    }

    /** A test that never ran (an {@code @BeforeEach} failed) has not been through afterTestExecution. */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        stop(fields(context, false), context.getRequiredTestInstance());
    }

    private static List<Field> fields(ExtensionContext context, boolean isStatic) {
        return AnnotationSupport.findAnnotatedFields(context.getRequiredTestClass(), UringRuntime.class,
                f -> Modifier.isStatic(f.getModifiers()) == isStatic && f.getType() == Uring.class);
    }

    private static void start(List<Field> fields, Object instance) throws Exception {
        for (Field field : fields) {
            field.setAccessible(true);
            field.set(instance, Uring.builder().loops(field.getAnnotation(UringRuntime.class).loops()).build());
        }
    }

    /** Closing is idempotent, so a test that closes its runtime itself is left as it was. */
    private static void stop(List<Field> fields, Object instance) throws Exception {
        for (Field field : fields) {
            field.setAccessible(true);
            if (field.get(instance) instanceof Uring uring) {
                uring.close();
            }
        }
    }
}
