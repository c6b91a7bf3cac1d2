package io.uring4j.testkit;

import java.lang.reflect.Field;

/**
 * A private field's value, for the tests that stop a thread at a lock or take an entry off a queue to force an
 * interleaving no public method can reach.
 */
public final class Fields {
    private Fields() {
    }

    /** The value of {@code declaring}'s field {@code name} in {@code of}. */
    @SuppressWarnings("unchecked")
    public static <T> T read(Class<?> declaring, String name, Object of) {
        try {
            Field field = declaring.getDeclaredField(name);
            field.setAccessible(true);
            return (T) field.get(of);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no field " + name + " in " + declaring.getName(), e);
        }
    }
}
