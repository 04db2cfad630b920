package lab.floor.tasks

import lab.support.Catalogue
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals

/** The floor parks a task of every model a server of the catalogue runs, so that each server's memory splits against its own. */
class ModelTest {
    @Test
    fun `the floor's models are the catalogue's, by name and in its order`() {
        assertEquals(Catalogue.models.map { it.name }, Model.slugs)
    }
}
