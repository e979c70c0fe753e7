package io.github.workerpool.spring.boot.autoconfigure;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.workerpool.Pool;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsProperties;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolProperties;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ahead-of-time processing of the starter: the code it writes compiles, the context it
 * initializes makes the pools, and the endpoint's answers have their reflection hints. Runs in a forked class loader so that the generated code, in this
 * package, can reach the package-private classes it calls.
 */
@CompileWithForkedClassLoader
class PoolsAotTests {

    @Test
    void poolsAreMadeByTheCodeThatAheadOfTimeProcessingWrites() {
        compileAheadOfTime(new String[] { "pools.instances.mail.capacity=2", "pools.instances.crawler.capacity=3" },
                (context) -> {
                    TestPropertyValues.of("pools.instances.mail.capacity=2", "pools.instances.crawler.capacity=3")
                        .applyTo(context);
                    context.refresh();
                    Pool mail = context.getBean("mail", Pool.class);
                    assertThat(mail).isInstanceOf(SpringPool.class);
                    assertThat(mail.capacity()).isEqualTo(2);
                    assertThat(context.getBean("crawler", Pool.class).capacity()).isEqualTo(3);
                });
    }

    @Test
    void poolOptionsAreReadWhenTheProcessedApplicationStartsNotAtBuildTime() {
        compileAheadOfTime(new String[] { "pools.instances.mail.capacity=2" }, (context) -> {
            TestPropertyValues.of("pools.instances.mail.capacity=7", "pools.instances.mail.queue-capacity=9")
                .applyTo(context);
            context.refresh();
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.capacity()).isEqualTo(7);
            assertThat(mail.config().queueCapacity()).isEqualTo(9);
            try {
                assertThat(mail.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS))
                    .startsWith("mail-");
            }
            catch (Exception ex) {
                throw new AssertionError(ex);
            }
        });
    }

    @Test
    void endpointAnswersHaveReflectionHintsForJsonBinding() {
        RuntimeHints hints = new RuntimeHints();
        new PoolsEndpointRuntimeHints().registerHints(hints, getClass().getClassLoader());
        assertBindingHints(hints);
    }

    @Test
    void endpointAutoConfigurationImportsTheHintsWhenProcessedAheadOfTime() {
        AnnotationConfigApplicationContext build = new AnnotationConfigApplicationContext();
        TestPropertyValues.of("pools.instances.mail.capacity=2", "management.endpoints.web.exposure.include=pools")
            .applyTo(build);
        build.register(PoolsAutoConfiguration.class, EndpointAutoConfiguration.class,
                PoolsEndpointAutoConfiguration.class);
        TestGenerationContext generationContext = new TestGenerationContext();
        new ApplicationContextAotGenerator().processAheadOfTime(build, generationContext);
        assertBindingHints(generationContext.getRuntimeHints());
    }

    @Test
    void thePropertiesHaveBindingHintsWhenProcessedAheadOfTime() {
        // pools.* is bound where it is read, no @ConfigurationProperties bean (Spring Cloud's
        // rebinder), so Boot's processing no longer finds its types by itself.
        AnnotationConfigApplicationContext build = new AnnotationConfigApplicationContext();
        TestPropertyValues.of("pools.instances.mail.capacity=2").applyTo(build);
        build.register(PoolsAutoConfiguration.class);
        TestGenerationContext generationContext = new TestGenerationContext();
        new ApplicationContextAotGenerator().processAheadOfTime(build, generationContext);
        RuntimeHints hints = generationContext.getRuntimeHints();
        ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();
        for (Class<?> type : new Class<?>[] { PoolsProperties.class, PoolsProperties.Pool.class,
                PoolEventsProperties.class, WebServerPoolProperties.class }) {
            assertThat(reflection.onType(type)).as(type.getName()).accepts(hints);
        }
        assertThat(reflection.onMethodInvocation(PoolsProperties.Pool.class, "setCapacity")).accepts(hints);
    }

    private static void assertBindingHints(RuntimeHints hints) {
        ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();
        assertThat(reflection.onType(PoolsEndpoint.PoolsDescriptor.class)).accepts(hints);
        assertThat(reflection.onMethodInvocation(PoolsEndpoint.PoolsDescriptor.class, "pools")).accepts(hints);
        assertThat(reflection.onMethodInvocation(PoolsEndpoint.PoolsDescriptor.class, "unreadable")).accepts(hints);
        assertThat(reflection.onType(PoolsEndpoint.PoolDescriptor.class)).accepts(hints);
        for (String accessor : new String[] { "name", "capacity", "queueCapacity", "cancelled", "closed", "config" }) {
            assertThat(reflection.onMethodInvocation(PoolsEndpoint.PoolDescriptor.class, accessor)).as(accessor)
                .accepts(hints);
        }
        assertThat(reflection.onType(PoolsEndpoint.PurgeDescriptor.class)).accepts(hints);
        assertThat(reflection.onMethodInvocation(PoolsEndpoint.PurgeDescriptor.class, "purged")).accepts(hints);
        assertThat(reflection.onMethodInvocation(PoolsEndpoint.PurgeDescriptor.class, "pool")).accepts(hints);
    }

    /**
     * Processes the auto-configuration ahead of time with the given build-time properties,
     * compiles what it writes, and hands a fresh context initialized by that code (not refreshed)
     * to the check, closing it afterwards.
     */
    private static void compileAheadOfTime(String[] buildProperties, Consumer<GenericApplicationContext> check) {
        AnnotationConfigApplicationContext build = new AnnotationConfigApplicationContext();
        TestPropertyValues.of(buildProperties).applyTo(build);
        build.register(PoolsAutoConfiguration.class);
        TestGenerationContext generationContext = new TestGenerationContext();
        ClassName initializerName = new ApplicationContextAotGenerator().processAheadOfTime(build, generationContext);
        generationContext.writeGeneratedContent();
        TestCompiler.forSystem().with(generationContext).compile((compiled) -> {
            GenericApplicationContext context = new GenericApplicationContext();
            try {
                @SuppressWarnings("unchecked")
                ApplicationContextInitializer<GenericApplicationContext> initializer = compiled
                    .getInstance(ApplicationContextInitializer.class, initializerName.toString());
                initializer.initialize(context);
                check.accept(context);
            }
            finally {
                context.close();
            }
        });
    }

}
